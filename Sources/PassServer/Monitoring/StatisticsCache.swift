import Storage
import Synchronization

/// The latest table-wide counts, reused for `ttl`: counting a table of 100,000 registrations
/// takes tens of milliseconds, which a scrape every few seconds (or several Prometheus servers)
/// should not pay each time.
final class StatisticsCache: Sendable {
    private let ttl: Duration
    private let latest = Mutex<(at: ContinuousClock.Instant, value: StoreStatistics)?>(nil)

    init(ttl: Duration) {
        self.ttl = ttl
    }

    /// The cached counts while fresh, otherwise `read()`'s (then cached).
    func value(_ read: () throws -> StoreStatistics) rethrows -> StoreStatistics {
        let now = ContinuousClock.now
        if let cached = latest.withLock({ $0 }), now - cached.at < ttl { return cached.value }
        let value = try read()
        latest.withLock { $0 = (now, value) }
        return value
    }
}
