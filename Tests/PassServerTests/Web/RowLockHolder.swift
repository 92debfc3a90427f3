import Foundation
import PassServerFixtures
import Storage
import Synchronization

/// Keeps the rows a `SELECT … FOR UPDATE` returns locked, in a transaction open on a thread of its
/// own, until `release()`: what another PostgreSQL client editing them looks like. Whoever else
/// locks them (the job runner's batch) waits; plain reads go on.
final class RowLockHolder: Sendable {
    private let releasing = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let state = Mutex<(locked: Int, failure: String?, done: Bool)>((0, nil, false))

    /// Returns once the rows are locked; throws if the query failed or locked no row.
    init(_ store: any Store, _ query: SQLQuery) throws {
        let held = DispatchSemaphore(value: 0)
        Thread { [self] in
            do {
                try store.transaction { session in
                    let rows = try session.execute(query)
                    self.state.withLock { $0.locked = rows.count }
                    held.signal()
                    // Bounded: a test that fails before `release()` does not hold the rows forever.
                    _ = self.releasing.wait(timeout: .now() + 300)
                }
            } catch {
                self.state.withLock { $0.failure = "\(error)" }
                held.signal()
            }
            self.released.signal()
        }.start()
        guard held.wait(timeout: .now() + 60) == .success else { throw AdminSupport.Failure(description: "the rows were not locked within 60 s") }
        let (locked, failure, _) = state.withLock { $0 }
        if let failure { throw AdminSupport.Failure(description: "locking failed: \(failure)") }
        guard locked > 0 else {
            release()
            throw AdminSupport.Failure(description: "the query locked no row")
        }
    }

    /// Ends the transaction and waits until the rows are free. Only the first call does anything.
    func release() {
        let first = state.withLock { state -> Bool in
            defer { state.done = true }
            return !state.done
        }
        guard first else { return }
        releasing.signal()
        _ = released.wait(timeout: .now() + 60)
    }
}
