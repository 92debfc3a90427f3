import APNs
import Foundation
import Logging
import PassServerTesting
import Testing

@Suite("APNSClient connection lifecycle", .offCooperativePool, .timeLimit(.minutes(2)))
struct APNSClientConnectionTests {
    @Test("idle connections are kept open with PINGs and reused")
    func idlePing() async throws {
        let harness = try APNsTestHarness.start(configureClient: { $0.idlePingInterval = 0.2 })
        defer { harness.stop() }
        let request = APNSRequest(pushToken: APNsTestHarness.token(1), topic: APNsTestHarness.topic)
        #expect(try await harness.client.send(request).status == 200)
        // Idle for several ping intervals: the fake hears PINGs, and the client keeps the connection.
        try await eventually("PINGs on the idle connection (\(harness.fake.pingsReceived) so far)", timeout: 30) {
            harness.fake.pingsReceived >= 3
        }
        #expect(harness.client.stats.connectionsOpen == 1)
        #expect(try await harness.client.send(request).status == 200)
        #expect(harness.fake.connectionsAccepted == 1)
    }

    @Test("nothing listening: the push fails retryably with connectionFailed, and works once the server is back")
    func refusedThenBack() async throws {
        let harness = try APNsTestHarness.start()
        defer { harness.stop() }
        harness.fake.stopListening()
        let request = APNSRequest(pushToken: APNsTestHarness.token(1), topic: APNsTestHarness.topic)
        let error = await #expect(throws: APNSError.self) { try await harness.client.send(request) }
        #expect(error?.code == .connectionFailed)
        #expect(error?.isRetryable == true)
        try harness.fake.startListening()
        var status = 0
        for _ in 0..<100 where status != 200 {
            do { status = try await harness.client.send(request).status } catch let error as APNSError where error.isRetryable {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(status == 200)
    }

    @Test("a GOAWAY with every stream accepted moves later pushes to a new connection")
    func goAwayThenNewConnection() async throws {
        let harness = try APNsTestHarness.start(configureFake: { $0.goAwayAfter = 1 })
        defer { harness.stop() }
        for index in 0..<5 {
            let response = try await harness.client.send(APNSRequest(pushToken: APNsTestHarness.token(index), topic: APNsTestHarness.topic))
            #expect(response.status == 200)
        }
        #expect(harness.fake.connectionsAccepted == 5)
        #expect(Set(harness.fake.pushes.map(\.connectionID)).count == 5)
    }
}
