// The embedded SQLite `Store`, for one process.
//
// Threading: one writer connection behind a lock (every write and every transaction runs on it,
// so writers never race for SQLite's lock), plus a few reader connections lent by a counting
// semaphore; WAL mode lets readers see the last committed state while the writer works. All calls
// block the calling thread, for at most `acquireTimeout` while waiting for a connection (then
// `.timeout`), plus `busy_timeout` while another process holds the database lock (then `.timeout`).

import Dispatch
import Foundation
import Synchronization
import SystemSupport

/// The SQLite `Store`: WAL journal, `busy_timeout`, `foreign_keys = ON`.
public final class SQLiteStore: Store {
    private let writer: SQLiteConnection
    /// Held for a whole write session. A nested session on the same thread reuses the open one
    /// (`OpenSessions`) and never takes this twice. Handed to the writer that waited longest, so a
    /// thread that writes in a loop cannot starve a waiting request past `acquireTimeout`.
    private let writerLock = HandOffLock()
    private let readers = Mutex<[SQLiteConnection]>([])
    private let readerPermits: DispatchSemaphore
    private let path: String
    private let busyTimeoutMilliseconds: Int32
    private let acquireTimeout: Duration

    public var backend: StorageBackend { .sqlite }

    /// Opens (creating if needed) the database file at `path` and its parent directory.
    public init(path: String, options: StoreOptions = StoreOptions()) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StorageError(.unavailable, "could not create the directory for the SQLite database")
            }
        }
        try Self.createPrivately(path)
        self.path = path
        busyTimeoutMilliseconds = Int32(clamping: options.busyTimeout.milliseconds)
        acquireTimeout = options.acquireTimeout
        writer = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        readerPermits = DispatchSemaphore(value: max(options.poolSize ?? 4, 1))
    }

    public func withSession<T>(_ access: StoreAccess, _ body: (StoreSession) throws -> T) throws -> T {
        try OpenSessions.withSession(of: self, access, borrow: { try borrow(access, $0) }, body)
    }

    private func borrow<T>(_ access: StoreAccess, _ body: (StoreSession) throws -> T) throws -> T {
        switch access {
        case .write:
            guard writerLock.lock(before: .now() + acquireTimeout.dispatchInterval) else {
                throw StorageError(.timeout, "the SQLite writer stayed busy too long")
            }
            defer { writerLock.unlock() }
            return try body(StoreSession(connection: writer, access: .write))
        case .read:
            guard readerPermits.wait(timeout: .now() + acquireTimeout.dispatchInterval) == .success else {
                throw StorageError(.timeout, "no SQLite reader connection became free in time")
            }
            defer { readerPermits.signal() }
            let connection = try readers.withLock { $0.popLast() }
                ?? SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            defer { readers.withLock { $0.append(connection) } }
            return try body(StoreSession(connection: connection, access: .read))
        }
    }

    public func close() {
        readers.withLock { $0.removeAll() }
    }

    /// Creates a missing database file empty with mode 0600 before SQLite opens it. SQLite would
    /// create it 0644 (less the umask), and gives the `-wal` and `-shm` files it makes later the
    /// mode of the database file, so all three are private from their first instant. An existing
    /// file is left as it is.
    static func createPrivately(_ path: String) throws {
        guard path != ":memory:" else { return }
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(0o600))
        guard fd >= 0 else {
            if errno == EEXIST { return }
            throw StorageError(.unavailable, "could not create the SQLite database file: \(String(cString: strerror(errno)))")
        }
        defer { Glibc.close(fd) }
        // The umask can only remove bits; make the mode exactly 0600 on our own descriptor.
        _ = fchmod(fd, mode_t(0o600))
    }
}
