import Foundation
import Logging
import Storage
import Synchronization
import SystemSupport

/// Folds the tally changes that triggers and the push dispatcher append into the running
/// tallies, so reading an event's counts stays a few rows. Run every second by a periodic `Worker`;
/// reads are exact whether or not a fold has run (they add the changes not folded yet), so a
/// server that is down or behind only makes reads a little larger. Several processes may fold at
/// once (each takes rows the others have not locked).
final class TallyFolder: Sendable {
    /// Changes folded per statement; a round repeats while full batches come back.
    static let batchSize = 10_000

    private let store: any Store
    private let logger: Logger
    private let outage = Mutex(DatabaseOutage())

    init(store: any Store, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// One round: folds until fewer than a batch remain or `shouldStop` says so.
    func fold(shouldStop: () -> Bool) {
        do {
            while try store.withSession(.write, { try $0.reach.foldTallyChanges(limit: Self.batchSize) }) == Self.batchSize, !shouldStop() {}
            outage.withLock { $0.recovered(at: Date(), logger: logger, resumed: "database available again; tallies are folded") }
        } catch where DatabaseOutage.isOutage(error) {
            outage.withLock { _ = $0.failed(error, at: Date(), logger: logger, waiting: "database unavailable; tallies wait to be folded") }
        } catch {
            logger.error("cannot fold tally changes; the next round retries", ["error": "\(error)"])
        }
    }
}
