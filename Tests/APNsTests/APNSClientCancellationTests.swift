import APNs
import Foundation
import PassServerTesting
import Testing

@Suite("APNSClient cancellation", .offCooperativePool, .timeLimit(.minutes(2)))
struct APNSClientCancellationTests {
    @Test("cancelling the calling task abandons the push and leaves the connection usable")
    func cancelInFlight() async throws {
        let harness = try APNsTestHarness.start()
        defer { harness.stop() }
        let slow = APNsTestHarness.token(1)
        harness.fake.script(token: slow.rawValue, [.delayed(seconds: 30, then: .success)])
        let client = harness.client
        let task = Task { try await client.send(APNSRequest(pushToken: slow, topic: APNsTestHarness.topic)) }
        try await eventually("the slow push reached the fake", timeout: 30) { !harness.fake.pushes.isEmpty }
        let started = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(try await client.send(APNSRequest(pushToken: APNsTestHarness.token(2), topic: APNsTestHarness.topic)).status == 200)
        #expect(harness.fake.connectionsAccepted == 1)
    }
}
