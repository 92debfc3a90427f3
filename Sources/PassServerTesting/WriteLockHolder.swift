import Foundation
public import Storage

/// Keeps a store's write lock taken on a thread of its own until `release()`: an open transaction
/// (on SQLite, what another process holding the database file looks like) or, with
/// `transaction: false`, just a borrowed write session (SQLite's writer connection: a long write
/// in this process; on PostgreSQL, one connection of the pool).
public final class WriteLockHolder: Sendable {
    private let releasing = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// Returns once the lock is held.
    public init(_ store: any Store, transaction: Bool = true) {
        let held = DispatchSemaphore(value: 0)
        Thread { [releasing, released] in
            let hold: @Sendable (StoreSession) -> Void = { _ in
                held.signal()
                // Bounded (generously: a loaded machine is slow): a test that fails before `release()`
                // does not hold the lock forever.
                _ = releasing.wait(timeout: .now() + 600)
            }
            let took = transaction ? (try? store.transaction(hold)) != nil : (try? store.withSession(.write, hold)) != nil
            // A store that failed before lending the lock must not leave `init` waiting.
            if !took { held.signal() }
            released.signal()
        }.start()
        _ = held.wait(timeout: .now() + 120)
    }

    /// Ends the transaction (rolled back or committed empty) and waits until the lock is free.
    public func release() {
        releasing.signal()
        _ = released.wait(timeout: .now() + 120)
    }
}
