import APNs
import Foundation
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Push policy: the APNs reply table", .offCooperativePool)
struct PushPolicyTests {
    let policy = PushPolicy(maxRetryAge: 3_600, baseDelay: 1, maxDelay: 300)
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    func decide(_ outcome: PushPolicy.Outcome, attempts: Int = 1, age: TimeInterval = 0, random: Double = 0.5) -> PushPolicy.Action {
        policy.action(for: outcome, attempts: attempts, enqueuedAt: start, now: start.addingTimeInterval(age), random: random)
    }

    func answer(_ status: Int, _ reason: APNSReason?, timestamp: Date? = nil) -> PushPolicy.Outcome {
        .answered(status: status, reason: reason, timestamp: timestamp)
    }

    /// Every reason APNs documents with a 400 status, with Apple's spelling.
    static let documented400: [String] = [
        "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
        "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
        "MissingTopic", "PayloadEmpty", "TopicDisallowed",
    ]

    @Test("200 is delivered; a push only logged (APNS_MODE=log) is logged, not delivered")
    func deliveredAndLogged() {
        #expect(decide(answer(200, nil)) == .delivered)
        #expect(decide(.logged) == .logged)
    }

    @Test("410 prunes unless renewed after the timestamp, whatever its reason")
    func gone() {
        let stamp = start.addingTimeInterval(-10)
        #expect(decide(answer(410, .unregistered, timestamp: stamp)) == .prune(reason: .unregistered, unlessRenewedAfter: stamp))
        #expect(decide(answer(410, .expiredToken, timestamp: stamp)) == .prune(reason: .expiredToken, unlessRenewedAfter: stamp))
        #expect(decide(answer(410, nil)) == .prune(reason: .unregistered, unlessRenewedAfter: nil))
    }

    @Test("400 BadDeviceToken and DeviceTokenNotForTopic are about one token: prune it, never halt",
          arguments: [APNSReason.badDeviceToken, .deviceTokenNotForTopic])
    func tokenFacts(reason: APNSReason) {
        #expect(decide(answer(400, reason)) == .prune(reason: reason, unlessRenewedAfter: nil))
    }

    @Test("400 BadTopic, TopicDisallowed and MissingTopic are about our topic: halt",
          arguments: [APNSReason.badTopic, .topicDisallowed, .missingTopic])
    func topicHalts(reason: APNSReason) {
        #expect(decide(answer(400, reason)) == .halt(status: 400, reason: reason))
    }

    @Test("every 403 is about our credentials: halt, whatever the reason (or none)",
          arguments: [APNSReason.badCertificate, .badCertificateEnvironment, .forbidden, .expiredProviderToken, .unknown("SomethingNew")])
    func credentialHalts(reason: APNSReason) {
        #expect(decide(answer(403, reason)) == .halt(status: 403, reason: reason))
        #expect(decide(answer(403, nil)) == .halt(status: 403, reason: nil))
    }

    @Test("any other 400 (and 404, 405, 413) fails that row only: no halt, no retry",
          arguments: [
              (400, APNSReason.badPriority), (400, .badExpirationDate), (400, .payloadEmpty), (400, .invalidPushType),
              (400, .badCollapseID), (400, .duplicateHeaders), (400, .unknown("SomethingNew")),
              (404, .badPath), (405, .methodNotAllowed), (413, .payloadTooLarge),
          ])
    func requestMistakesFailTheRow(status: Int, reason: APNSReason) {
        #expect(decide(answer(status, reason)) == .fail(.rejected(status: status, reason: reason)))
    }

    @Test("a 400 without a reason fails the row")
    func reasonless400() {
        #expect(decide(answer(400, nil)) == .fail(.rejected(status: 400, reason: nil)))
    }

    @Test("of all documented 400 reasons, exactly the three topic reasons halt and exactly the two token reasons prune")
    func whole400Table() {
        var halting: [String] = []
        var pruning: [String] = []
        for name in Self.documented400 {
            let reason = APNSReason(rawValue: name)
            #expect(reason != .unknown(name), "\(name) decodes to a typed reason")
            switch decide(answer(400, reason)) {
            case .halt: halting.append(name)
            case .prune: pruning.append(name)
            case .fail: break
            case let other: Issue.record("400 \(name) gave \(other)")
            }
        }
        #expect(halting.sorted() == ["BadTopic", "MissingTopic", "TopicDisallowed"])
        #expect(pruning.sorted() == ["BadDeviceToken", "DeviceTokenNotForTopic"])
    }

    @Test("429, 5xx, unreachable APNs and transport failures retry with growing, jittered delays", arguments: [429, 500, 503])
    func retry(status: Int) {
        let first = decide(answer(status, nil), attempts: 1, random: 1)
        let fifth = decide(answer(status, nil), attempts: 5, random: 1)
        #expect(first == .retry(after: 1))
        #expect(fifth == .retry(after: 16))
        #expect(decide(.transportFailure("connection lost"), attempts: 3, random: 0) == .retry(after: 0.5))
        #expect(decide(.unreachable("connect failed: Connection refused"), attempts: 2, random: 1) == .retry(after: 2))
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

    @Test("retryable failures older than the maximum age fail, labelled retries_exhausted")
    func giveUp() {
        for outcome in [answer(503, .serviceUnavailable), .unreachable("connect failed")] {
            guard case .fail(let failure) = decide(outcome, attempts: 12, age: 3_590), case .gaveUp(let attempts, _) = failure else {
                Issue.record("expected a give-up for \(outcome)")
                continue
            }
            #expect(attempts == 12)
            #expect(failure.description.contains("12 attempts"))
            #expect(failure.metricLabel == "retries_exhausted")
        }
        // The same attempt on a young row is retried (delay capped at 5 minutes, half-way by the jitter).
        #expect(decide(.unreachable("connect failed"), attempts: 12, age: 10) == .retry(after: 150.25))
    }

    @Test("failure labels for metrics are Apple's reason or a fixed word, never free text")
    func labels() {
        #expect(PushPolicy.Failure.rejected(status: 400, reason: .badPriority).metricLabel == "BadPriority")
        #expect(PushPolicy.Failure.rejected(status: 400, reason: .unknown("Attacker-Chosen \" text")).metricLabel == "unknown")
        #expect(PushPolicy.Failure.rejected(status: 400, reason: nil).metricLabel == "no_reason")
        #expect(APNSReason.deviceTokenNotForTopic.metricLabel == "DeviceTokenNotForTopic")
        #expect(APNSReason.unknown("x").metricLabel == "unknown")
    }

    @Test("as the outbox's policy, a pruning answer's outcome carries its prune, counted as pruned with Apple's reason as label; no other answer carries one")
    func pruneRidesOnTheOutcome() {
        let stamp = start.addingTimeInterval(-10)
        func decision(_ outcome: PushPolicy.Outcome) -> OutboxDecision<PushPrune> {
            policy.decide(PushDelivery(outcome: outcome, apnsID: nil), attempts: 1, enqueuedAt: start, now: start, random: 0.5)
        }
        let pruning: [(PushPolicy.Outcome, PushPrune, String)] = [
            (answer(410, .unregistered, timestamp: stamp), PushPrune(reason: .unregistered, unlessRenewedAfter: stamp), "Unregistered"),
            (answer(410, .expiredToken, timestamp: stamp), PushPrune(reason: .expiredToken, unlessRenewedAfter: stamp), "ExpiredToken"),
            (answer(410, nil), PushPrune(reason: .unregistered, unlessRenewedAfter: nil), "Unregistered"),
            (answer(400, .badDeviceToken), PushPrune(reason: .badDeviceToken, unlessRenewedAfter: nil), "BadDeviceToken"),
            (answer(400, .deviceTokenNotForTopic), PushPrune(reason: .deviceTokenNotForTopic, unlessRenewedAfter: nil), "DeviceTokenNotForTopic"),
        ]
        for (outcome, prune, label) in pruning {
            let pruned = decision(outcome)
            #expect(pruned.result == .applied(prune), "\(outcome)")
            #expect(pruned.result.kind == .pruned && pruned.outcome == "pruned" && pruned.label == label, "\(outcome)")
            #expect(pruned.settlement == .completed, "\(outcome)")
        }
        let others: [PushPolicy.Outcome] = [
            answer(200, nil), .logged, answer(429, .tooManyRequests), answer(400, .badPriority), answer(400, .badTopic),
            answer(403, .badCertificate), answer(500, nil), .transportFailure("connection lost"), .unreachable("connect failed"),
        ]
        for outcome in others {
            let other = decision(outcome)
            #expect(other.result.effect == nil && other.outcome != "pruned", "\(outcome)")
        }
    }
}
