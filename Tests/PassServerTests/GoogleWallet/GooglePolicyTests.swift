import Foundation
import PassServerTesting
import Testing

@testable import PassServer

/// The Google Wallet reply table: each answer's settlement.
@Suite("Google Wallet reply policy", .offCooperativePool, .timeLimit(.minutes(1)))
struct GooglePolicyTests {
    let policy = GooglePolicy(schedule: RetrySchedule(baseDelay: 2, maxDelay: 600, maxRetryAge: 86_400))
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func decide(_ delivery: GoogleDelivery, attempts: Int = 1, enqueued: TimeInterval = 0) -> OutboxDecision<Never> {
        policy.decide(delivery, attempts: attempts, enqueuedAt: now.addingTimeInterval(-enqueued), now: now, random: 0.5)
    }

    @Test("synced completes; 429, 5xx, an object's 404 and no answer retry with growing delays; 400 fails that row alone; 401/403 halt")
    func table() {
        #expect(decide(.synced(status: 200, notified: false)).settlement == .completed)
        #expect(decide(.synced(status: 200, notified: false)).accepted)
        for delivery: GoogleDelivery in [.refused(status: 429, reason: "RESOURCE_EXHAUSTED"), .refused(status: 500, reason: "INTERNAL"),
                                         .refused(status: 503, reason: "UNAVAILABLE"), .refused(status: 404, reason: "NOT_FOUND"), .unreachable("connection reset")] {
            guard case .retry(let first) = decide(delivery, attempts: 1).settlement, case .retry(let later) = decide(delivery, attempts: 6).settlement else {
                Issue.record("\(delivery) is not retried")
                continue
            }
            #expect(first < later, "\(delivery): \(first) then \(later)")
            // Past the retry age: given up with the last answer.
            guard case .failed(let reason) = decide(delivery, attempts: 3, enqueued: 86_400).settlement else {
                Issue.record("\(delivery) is retried past its age")
                continue
            }
            #expect(reason.hasPrefix("gave up after 3 attempts"))
        }
        let invalid = decide(.refused(status: 400, reason: "INVALID_ARGUMENT: classId"))
        #expect(invalid.settlement == .failed(reason: "400 INVALID_ARGUMENT: classId") && invalid.rejected && invalid.label == "refused")
        for status in [401, 403] {
            guard case .halt = decide(.refused(status: status, reason: "PERMISSION_DENIED")).settlement else {
                Issue.record("\(status) does not halt")
                continue
            }
        }
        #expect(decide(.unwritable("the event is gone")).settlement == .completed)
        #expect(decide(.notSent("stopping")).settlement == .retry(after: 0))
    }
}
