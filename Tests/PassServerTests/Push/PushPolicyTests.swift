import Foundation
import Testing

@testable import PassServer

@Suite("Push policy: the APNs reply table")
struct PushPolicyTests {
    let policy = PushPolicy(maxRetryAge: 3_600, baseDelay: 1, maxDelay: 300)
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    func decide(_ outcome: PushPolicy.Outcome, attempts: Int = 1, age: TimeInterval = 0, random: Double = 0.5) -> PushPolicy.Action {
        policy.action(for: outcome, attempts: attempts, enqueuedAt: start, now: start.addingTimeInterval(age), random: random)
    }

    @Test("200 is delivered")
    func delivered() {
        #expect(decide(.answered(status: 200, reason: nil, timestamp: nil)) == .delivered)
    }

    @Test("410 prunes unless renewed after the timestamp; BadDeviceToken prunes")
    func prune() {
        let stamp = start.addingTimeInterval(-10)
        #expect(decide(.answered(status: 410, reason: "Unregistered", timestamp: stamp)) == .prune(unlessRenewedAfter: stamp))
        #expect(decide(.answered(status: 400, reason: "BadDeviceToken", timestamp: nil)) == .prune(unlessRenewedAfter: nil))
    }

    @Test("other 400s and 403s halt", arguments: [(400, "BadTopic"), (400, "DeviceTokenNotForTopic"), (403, "BadCertificate"), (403, "BadCertificateEnvironment")])
    func halt(status: Int, reason: String) {
        guard case .halt(let text) = decide(.answered(status: status, reason: reason, timestamp: nil)) else {
            Issue.record("expected halt for \(status) \(reason)")
            return
        }
        #expect(text.contains(reason))
    }

    @Test("429, 5xx and transport failures retry with growing, jittered delays", arguments: [429, 500, 503])
    func retry(status: Int) {
        let first = decide(.answered(status: status, reason: nil, timestamp: nil), attempts: 1, random: 1)
        let fifth = decide(.answered(status: status, reason: nil, timestamp: nil), attempts: 5, random: 1)
        #expect(first == .retry(after: 1))
        #expect(fifth == .retry(after: 16))
        #expect(decide(.transportFailure("connection lost"), attempts: 3, random: 0) == .retry(after: 0.5))
    }

    @Test("delays stay within bounds for any jitter")
    func bounds() {
        for attempts in 1...40 {
            for random in stride(from: 0.0, through: 1.0, by: 0.25) {
                let wait = policy.delay(attempts: attempts, random: random)
                #expect(wait >= 0.5 && wait <= 300)
            }
        }
    }

    @Test("retryable failures older than the maximum age fail")
    func giveUp() {
        guard case .fail(let reason) = decide(.answered(status: 503, reason: "ServiceUnavailable", timestamp: nil), attempts: 12, age: 3_590) else {
            Issue.record("expected fail")
            return
        }
        #expect(reason.contains("12 attempts"))
    }
}
