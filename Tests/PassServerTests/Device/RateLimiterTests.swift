import Foundation
import PassServerTesting
import Testing

@testable import PassServer

@Suite("RateLimiter: token buckets per client", .offCooperativePool)
struct RateLimiterTests {
    let start = Date(timeIntervalSince1970: 1_780_000_000)

    @Test("a burst is allowed, then refused until tokens refill at the configured rate")
    func refill() {
        let limiter = RateLimiter(burst: 3, perMinute: 6)
        #expect((0..<3).allSatisfy { _ in limiter.allow("a", now: start) })
        #expect(!limiter.allow("a", now: start))
        // 6 per minute: one token every 10 s.
        #expect(!limiter.allow("a", now: start.addingTimeInterval(9)))
        #expect(limiter.allow("a", now: start.addingTimeInterval(10.5)))
        #expect(!limiter.allow("a", now: start.addingTimeInterval(11)))
        // A long pause refills to the burst, never beyond it.
        let later = start.addingTimeInterval(3_600)
        #expect((0..<3).allSatisfy { _ in limiter.allow("a", now: later) })
        #expect(!limiter.allow("a", now: later))
    }

    @Test("clients are independent, and a clock going backwards grants nothing")
    func independentClients() {
        let limiter = RateLimiter(burst: 1, perMinute: 60)
        #expect(limiter.allow("a", now: start))
        #expect(!limiter.allow("a", now: start))
        #expect(limiter.allow("b", now: start))
        #expect(!limiter.allow("a", now: start.addingTimeInterval(-100)))
        #expect(!limiter.allow("a", now: start), "stepping back and forth again refills nothing")
        #expect(limiter.allow("a", now: start.addingTimeInterval(1.5)))
    }

    @Test("memory stays bounded: full buckets are forgotten when too many clients are tracked")
    func bounded() {
        let limiter = RateLimiter(burst: 2, perMinute: 60, maxClients: 10)
        for index in 0..<100 {
            #expect(limiter.allow("client-\(index)", now: start.addingTimeInterval(Double(index) * 10)))
        }
        // A client that exhausted its bucket just now is still remembered.
        let now = start.addingTimeInterval(2_000)
        #expect(limiter.allow("busy", now: now))
        #expect(limiter.allow("busy", now: now))
        #expect(!limiter.allow("busy", now: now))
        #expect(limiter.trackedClients <= 12)
    }
}
