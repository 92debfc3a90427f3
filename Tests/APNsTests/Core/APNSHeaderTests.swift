import APNs
import Foundation
import Logging
import PassServerTesting
import Testing

/// `apns-push-type` and `apns-priority`: the client sends what it is configured with (or leaves a
/// header out), the fake answers every combination as APNs does, and `headerProblem` names exactly
/// the combinations APNs refuses.
@Suite("APNs push type and priority headers", .offCooperativePool, .timeLimit(.minutes(2)))
struct APNSHeaderTests {
    typealias Combination = (pushType: APNSPushType?, priority: APNSPriority?)

    /// Every combination the client can be configured with (nil: header left out).
    static let combinations: [Combination] = [APNSPushType?.none, .background, .alert].flatMap { pushType in
        [APNSPriority?.none, .considerPower, .immediate].map { (pushType, $0) }
    }

    @Test("over TLS + HTTP/2, the fake accepts exactly the combinations headerProblem allows, refusing the rest with 400 BadPriority")
    func fakeAgreesWithTheRule() async throws {
        var accepted: [String] = []
        for (index, combination) in Self.combinations.enumerated() {
            let harness = try APNsTestHarness.start(configureClient: { configuration in
                configuration.pushType = combination.pushType
                configuration.priority = combination.priority
            })
            defer { harness.stop() }
            let response = try await harness.client.send(APNSRequest(pushToken: APNsTestHarness.token(index), topic: APNsTestHarness.topic))
            let push = try #require(harness.fake.pushes.first)
            #expect(push.headers["apns-push-type"] == combination.pushType?.rawValue)
            #expect(push.headers["apns-priority"] == combination.priority.map { String($0.rawValue) })
            let name = "\(combination.pushType?.rawValue ?? "-")/\(combination.priority.map { String($0.rawValue) } ?? "-")"
            let problem = APNSConfiguration.headerProblem(pushType: combination.pushType, priority: combination.priority)
            if problem == nil {
                #expect(response.status == 200, "\(name) should be accepted")
                accepted.append(name)
            } else {
                #expect(response.status == 400, "\(name) should be refused")
                #expect(response.reason == .badPriority)
            }
        }
        // Background needs an explicit 5 (absent means 10); alert and an absent push type take anything.
        #expect(accepted.sorted() == ["-/-", "-/10", "-/5", "alert/-", "alert/10", "alert/5", "background/5"])
    }

    @Test("the defaults are background with priority 5, which APNs accepts")
    func defaults() {
        let configuration = APNSConfiguration(clientCertificateDER: [], clientPrivateKeyDER: [])
        #expect(configuration.pushType == .background)
        #expect(configuration.priority == .considerPower)
        #expect(configuration.headerProblem == nil)
    }
}
