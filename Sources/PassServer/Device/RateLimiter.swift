import Foundation
import Synchronization

/// Token buckets per client: `burst` requests at once, refilled at `perMinute`. Bounded memory:
/// when more than `maxClients` are tracked, buckets that are full again are forgotten.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    let burst: Double
    let perMinute: Double
    let maxClients: Int

    init(burst: Int, perMinute: Int, maxClients: Int = 10_000) {
        self.burst = Double(burst)
        self.perMinute = Double(perMinute)
        self.maxClients = maxClients
    }

    /// Takes one token for `client`; false when its bucket is empty.
    func allow(_ client: String, now: Date) -> Bool {
        buckets.withLock { buckets in
            if buckets.count > maxClients {
                buckets = buckets.filter { refilled($0.value, now: now) < burst }
            }
            var bucket = buckets[client] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = refilled(bucket, now: now)
            // A clock stepping back must not make the next call count the same seconds twice.
            bucket.updated = max(bucket.updated, now)
            guard bucket.tokens >= 1 else {
                buckets[client] = bucket
                return false
            }
            bucket.tokens -= 1
            buckets[client] = bucket
            return true
        }
    }

    /// How many clients currently have a bucket (bounded by about `maxClients`).
    var trackedClients: Int { buckets.withLock { $0.count } }

    private func refilled(_ bucket: Bucket, now: Date) -> Double {
        min(burst, bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * perMinute / 60)
    }
}
