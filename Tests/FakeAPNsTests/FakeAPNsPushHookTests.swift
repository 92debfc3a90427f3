import APNs
import FakeAPNs
import Foundation
import PassServerTesting
import Synchronization
import Testing

@Suite("FakeAPNs push hook", .offCooperativePool, .timeLimit(.minutes(2)))
struct FakeAPNsPushHookTests {
    @Test("onPush hears every answered push with its token and status, also when nothing is recorded")
    func hook() async throws {
        let heard = Mutex<[(token: String, status: Int)]>([])
        let harness = try APNsTestHarness.start(configureFake: { configuration in
            configuration.recordPushes = false
            configuration.onPush = { push in heard.withLock { $0.append((push.token, push.status)) } }
        })
        defer { harness.stop() }
        let gone = APNsTestHarness.token(2)
        harness.fake.script(token: gone.rawValue, [.unregistered(timestampMilliseconds: 1)])
        for index in 0..<3 {
            _ = try await harness.client.send(APNSRequest(pushToken: APNsTestHarness.token(index), topic: APNsTestHarness.topic))
        }
        let pushes = heard.withLock { $0 }.sorted { $0.token < $1.token }
        #expect(pushes.map(\.token) == (0..<3).map { APNsTestHarness.token($0).rawValue })
        #expect(pushes.map(\.status) == [200, 200, 410])
        #expect(harness.fake.pushes.isEmpty)
    }
}
