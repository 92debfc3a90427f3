import APNs
import Foundation
import Logging
import PassServerTesting
import Synchronization
import Testing

@Suite("APNSClient under load, GOAWAY, drops and stream limits", .offCooperativePool, .timeLimit(.minutes(5)))
struct APNSClientLoadTests {
    @Test("GOAWAY every 100 streams during 10,000 pushes: each answered exactly once, none lost")
    func goAwayDuringBatch() async throws {
        let harness = try APNsTestHarness.start(configureFake: { $0.goAwayAfter = 100 })
        defer { harness.stop() }
        let count = 10_000
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await harness.client.send(APNSRequest(pushToken: APNsTestHarness.token(index), topic: APNsTestHarness.topic)).status
                }
            }
            var all: [Int] = []
            for try await status in group { all.append(status) }
            return all
        }
        #expect(statuses.count == count)
        #expect(statuses.allSatisfy { $0 == 200 })
        var perToken: [String: Int] = [:]
        for push in harness.fake.pushes { perToken[push.token, default: 0] += 1 }
        #expect(perToken.count == count)
        #expect(perToken.values.allSatisfy { $0 == 1 })
        #expect(harness.fake.connectionsAccepted >= count / 100)
    }

    @Test("the fake drops connections mid-batch and comes back: failures are retryable and a retry loop delivers all")
    func dropAndRecover() async throws {
        let harness = try APNsTestHarness.start()
        defer { harness.stop() }
        let count = 300
        // The first attempt of each push hangs, so the drop surely catches every push in flight.
        for index in 0..<count { harness.fake.script(token: APNsTestHarness.token(index).rawValue, [.delayed(seconds: 20, then: .success)]) }
        let retryableFailures = Counter()
        let otherFailures = Counter()
        let delivered = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask {
                    let request = APNSRequest(pushToken: APNsTestHarness.token(index), topic: APNsTestHarness.topic)
                    for _ in 0..<200 {
                        do {
                            return try await harness.client.send(request).status
                        } catch let error as APNSError where error.isRetryable {
                            retryableFailures.add()
                            try await Task.sleep(for: .milliseconds(50))
                        } catch {
                            otherFailures.add()
                            return -1
                        }
                    }
                    return -2
                }
            }
            group.addTask {
                try await eventually("every first attempt reached the fake (\(harness.fake.pushes.count) of \(count))", timeout: 60) {
                    harness.fake.pushes.count >= count
                }
                harness.fake.stopListening()
                harness.fake.dropConnections()
                try await Task.sleep(for: .milliseconds(300))
                try harness.fake.startListening()
                return 0
            }
            var delivered = 0
            for try await status in group where status == 200 { delivered += 1 }
            return delivered
        }
        #expect(delivered == count)
        #expect(retryableFailures.value >= count, "every push in flight at the drop failed retryably")
        #expect(otherFailures.value == 0)
        for index in 0..<count { #expect(harness.fake.count(token: APNsTestHarness.token(index).rawValue) >= 1) }
    }

    @Test("stream limit 1 until the first answer, then 1000: the client follows it")
    func streamLimitRaised() async throws {
        let harness = try APNsTestHarness.start(configureFake: {
            $0.maxConcurrentStreams = 1
            $0.raiseMaxConcurrentStreamsAfterFirstResponse = 1000
            $0.defaultAnswer = .delayed(seconds: 0.05, then: .success)
        })
        defer { harness.stop() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<300 {
                group.addTask {
                    let response = try await harness.client.send(APNSRequest(pushToken: APNsTestHarness.token(index), topic: APNsTestHarness.topic))
                    #expect(response.status == 200)
                }
            }
            try await group.waitForAll()
        }
        let pushes = harness.fake.pushes
        #expect(pushes.count == 300, "no stream was refused for exceeding the limit")
        #expect(pushes.first?.concurrentStreams == 1)
        #expect(pushes.first?.advertisedLimit == 1)
        #expect(pushes.allSatisfy { $0.concurrentStreams <= Int($0.advertisedLimit) })
        #expect(pushes.contains { $0.concurrentStreams > 1 }, "concurrency rose after the limit did")
    }

    @Test("1000 concurrent callers over 4 connections all get answers")
    func manyCallers() async throws {
        let harness = try APNsTestHarness.start(configureClient: { $0.connections = 4 })
        defer { harness.stop() }
        let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<1000 {
                group.addTask {
                    try await harness.client.send(APNSRequest(pushToken: APNsTestHarness.token(index), topic: APNsTestHarness.topic)).status == 200
                }
            }
            var ok = 0
            for try await answered in group where answered { ok += 1 }
            return ok
        }
        #expect(ok == 1000)
        #expect(Set(harness.fake.pushes.map(\.token)).count == 1000)
        #expect(harness.fake.connectionsAccepted == 4)
        // Stats are published by the I/O thread after it resumed the callers: allow it a moment.
        var stats = harness.client.stats
        for _ in 0..<200 where stats.streamsInFlight > 0 {
            try await Task.sleep(for: .milliseconds(10))
            stats = harness.client.stats
        }
        #expect(stats.connectionsOpen == 4)
        #expect(stats.streamsInFlight == 0)
    }

    @Test("a request with no answer times out; the connection keeps working")
    func requestTimeout() async throws {
        let harness = try APNsTestHarness.start(configureClient: { $0.requestTimeout = 0.5 })
        defer { harness.stop() }
        let slow = APNsTestHarness.token(1)
        harness.fake.script(token: slow.rawValue, [.delayed(seconds: 5, then: .success)])
        let error = await #expect(throws: APNSError.self) {
            try await harness.client.send(APNSRequest(pushToken: slow, topic: APNsTestHarness.topic))
        }
        #expect(error?.code == .timeout)
        #expect(error?.isRetryable == true)
        #expect(try await harness.client.send(APNSRequest(pushToken: APNsTestHarness.token(2), topic: APNsTestHarness.topic)).status == 200)
        #expect(harness.fake.connectionsAccepted == 1)
    }

    @Test("shutdown while requests are pending returns promptly and fails them with .shutdown")
    func shutdownWithPending() async throws {
        let harness = try APNsTestHarness.start(
            configureFake: { $0.defaultAnswer = .delayed(seconds: 60, then: .success); $0.maxConcurrentStreams = 5 },
            configureClient: { $0.shutdownGracePeriod = 0.5 }
        )
        defer { harness.fake.shutdown() }
        let client = harness.client
        let results = try await withThrowingTaskGroup(of: APNSError.Code?.self) { group in
            for index in 0..<50 {
                group.addTask {
                    do {
                        _ = try await client.send(APNSRequest(pushToken: APNsTestHarness.token(index), topic: APNsTestHarness.topic))
                        return nil
                    } catch let error as APNSError {
                        return error.code
                    }
                }
            }
            try await eventually("five pushes reached the fake (\(harness.fake.pushes.count) so far)", timeout: 30) {
                harness.fake.pushes.count >= 5
            }
            let started = ContinuousClock.now
            client.shutdown()
            #expect(ContinuousClock.now - started < .seconds(10))
            var codes: [APNSError.Code?] = []
            for try await code in group { codes.append(code) }
            return codes
        }
        #expect(results.count == 50)
        #expect(results.allSatisfy { $0 == .shutdown })
        let late = await #expect(throws: APNSError.self) {
            try await client.send(APNSRequest(pushToken: APNsTestHarness.token(0), topic: APNsTestHarness.topic))
        }
        #expect(late?.code == .shutdown)
    }
}

/// A thread-safe tally for tasks of a test.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
