import Foundation
import PassIdentifiers
import PassServerTesting
@testable import Storage
import Synchronization

/// The two backends every conformance test runs against.
enum Backend: String, CaseIterable, CustomStringConvertible, Sendable {
    case postgres
    case sqlite

    var description: String { rawValue }
}

/// A fresh, migrated store: a new PostgreSQL database or a new SQLite file in a temp directory.
final class StoreFixture: Sendable {
    let backend: Backend
    let url: String
    let store: any Store
    private let directory: String?

    init(_ backend: Backend, migrate: Bool = true, options: StoreOptions = StoreOptions()) throws {
        self.backend = backend
        switch backend {
        case .postgres:
            url = try TestPostgres.createDatabase()
            directory = nil
        case .sqlite:
            let directory = NSTemporaryDirectory() + "storage-tests-" + UUID().uuidString
            self.directory = directory
            url = "sqlite://" + directory + "/nested/store.db"
        }
        store = try openStore(url: url, options: options)
        if migrate { try store.migrate() }
    }

    /// Another store on the same database (a second process, or a restart of this one).
    func reopen(options: StoreOptions = StoreOptions()) throws -> any Store {
        try openStore(url: url, options: options)
    }

    deinit {
        store.close()
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
        if backend == .postgres { try? TestPostgres.dropDatabase(url: url) }
    }

    // MARK: Builders

    static let passType: PassTypeIdentifier = "pass.com.example.ticket"

    /// Inserts a pass with unique tokens.
    @discardableResult
    func makePass(serial: SerialNumber = "\(UUID())", eventID: String? = nil, name: String = "Ada", now: Date = Date()) throws -> StoredPass {
        try store.withSession(.write) {
            try $0.passes.insertPass(NewPass(
                passTypeIdentifier: Self.passType, serialNumber: serial,
                authenticationTokenHash: Array(("auth-" + serial.rawValue).utf8), downloadTokenHash: Array(("download-" + serial.rawValue).utf8),
                eventID: eventID, attendeeName: name, attendeeEmail: "ada@example.com", seat: "A1"
            ), now: now)
        }
    }

    /// `count` pending push outbox rows due at `due` (tokens `00…0`, `00…1`, …), inserted directly,
    /// then claimed for ten minutes: the rows a dispatcher would hold in flight.
    func claimedOutboxRows(_ count: Int, due: Date) throws -> [OutboxRow] {
        try store.transaction { session in
            for index in 0..<count {
                try session.execute("""
                    INSERT INTO push_outbox (push_token, pass_type_identifier, next_attempt_at, first_enqueued_at)
                    VALUES (\(String(format: "%064x", index)), \(StoreFixture.passType), \(due.storageMillis), \(due.storageMillis))
                    """)
            }
        }
        return try store.withSession(.write) { try $0.outbox.claimOutbox(limit: count + 100, now: due, lease: .seconds(600)) }
    }

    func makeEvent(now: Date = Date()) throws -> Event {
        try store.withSession(.write) {
            try $0.events.createEvent(NewEvent(
                name: "Concert", venue: "Hall", startsAt: Date(timeIntervalSince1970: 1_900_000_000),
                timeZone: "Europe/Paris", template: "event"
            ), now: now)
        }
    }

    func register(device: DeviceLibraryIdentifier, token: PushToken, serial: SerialNumber, now: Date = Date()) throws -> RegistrationResult {
        try store.withSession(.write) {
            try $0.registrations.upsertRegistration(
                deviceLibraryIdentifier: device, pushToken: token, passTypeIdentifier: Self.passType, serialNumber: serial, now: now
            )
        }
    }
}

/// Runs `body(0..<count)` on `count` dedicated threads at once and waits for all of them, at most
/// `seconds` (generous: the machine is shared); a thread still running then is an error.
func onThreads(_ count: Int, seconds: Double = 120, _ body: @escaping @Sendable (Int) throws -> Void) throws {
    let errors = Mutex<[any Error]>([])
    let done = DispatchSemaphore(value: 0)
    for index in 0..<count {
        Thread {
            do { try body(index) } catch { errors.withLock { $0.append(error) } }
            done.signal()
        }.start()
    }
    let deadline = DispatchTime.now() + seconds
    for finished in 0..<count where done.wait(timeout: deadline) == .timedOut {
        throw ThreadsStillRunning(running: count - finished, seconds: seconds)
    }
    if let first = errors.withLock({ $0.first }) { throw first }
}

/// `onThreads` gave up waiting.
struct ThreadsStillRunning: Error, CustomStringConvertible {
    var running: Int
    var seconds: Double
    var description: String { "\(running) thread(s) still running after \(seconds) s" }
}

/// The storage error code of a thrown error, if it is one.
func storageCode(_ body: () throws -> Void) -> StorageError.Code? {
    do {
        try body()
        return nil
    } catch let error as StorageError {
        return error.code
    } catch {
        return nil
    }
}
