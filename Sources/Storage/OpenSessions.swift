import Foundation
import SystemSupport

/// The sessions open on the current thread, one per store: a `withSession` (or `transaction`) on a
/// store while the same thread is inside a session of that store gets that session back instead
/// of borrowing a second connection.
///
/// Thread-local rather than task-local on purpose: a session is one connection for one thread,
/// and a task started inside the body (which may run on another thread at the same time) must
/// borrow a connection of its own, not share this one.
enum OpenSessions {
    private final class Table {
        var sessions: [ObjectIdentifier: StoreSession] = [:]
    }

    /// Each thread's table (every store operation asks for it).
    private static let tables = ThreadLocal { Table() }

    /// Runs `body` on the session of `store` open on this thread, or on a new one that `borrow`
    /// lends. A read session cannot serve a nested write: that throws `.invalidValue`, the same
    /// on both backends (SQLite reads on connections that must not write).
    static func withSession<T>(
        of store: AnyObject,
        _ access: StoreAccess,
        borrow: ((StoreSession) throws -> T) throws -> T,
        _ body: (StoreSession) throws -> T
    ) throws -> T {
        let table = tables.current
        let id = ObjectIdentifier(store)
        if let open = table.sessions[id] {
            guard access == .read || open.access == .write else {
                throw StorageError(.invalidValue, "a write session cannot be opened inside a read session of the same store")
            }
            return try body(open)
        }
        // `borrow` calls `body` before it returns; it never keeps it.
        return try withoutActuallyEscaping(body) { body in
            try borrow { session in
                table.sessions[id] = session
                defer { table.sessions[id] = nil }
                return try body(session)
            }
        }
    }
}
