import APNs
import Foundation
import PassIdentifiers
import PassServerTesting
import Synchronization
import Testing

/// `submit`: pushes handed over without waiting, each answer delivered once by callback.
@Suite("APNSClient.submit: answers by callback", .offCooperativePool, .timeLimit(.minutes(2)))
struct APNSClientSubmitTests {
    @Test("1,000 pushes in one submit: every completion runs once, on the client's I/O thread, with APNs's answer")
    func batchOfCallbacks() throws {
        let harness = try APNsTestHarness.start()
        defer { harness.stop() }
        harness.fake.script(token: APNsTestHarness.token(3).rawValue, [.error(status: 400, reason: "BadDeviceToken")])
        let answers = Mutex<[Int: (status: Int, thread: String)]>([:])
        let done = DispatchSemaphore(value: 0)
        let count = 1_000
        harness.client.submit((0..<count).map { index in
            (APNSRequest(pushToken: APNsTestHarness.token(index), topic: APNsTestHarness.topic), { @Sendable result in
                let status = (try? result.get().status) ?? -1
                let finished = answers.withLock { answers in
                    #expect(answers[index] == nil, "answered twice: \(index)")
                    answers[index] = (status, Self.threadName())
                    return answers.count == count
                }
                if finished { done.signal() }
            })
        })
        #expect(done.wait(timeout: .now() + 60) == .success)
        let settled = answers.withLock { $0 }
        #expect(settled.count == count)
        #expect(settled[3]?.status == 400)
        #expect(settled.filter { $0.value.status == 200 }.count == count - 1)
        #expect(Set(settled.values.map(\.thread)) == ["apns-io"])
        #expect(harness.fake.pushes.count == count)
    }

    /// The calling thread's name as the kernel knows it.
    static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("text that is not a token never becomes a request; a push after shutdown completes at once with an error, on the caller's thread")
    func immediateFailures() throws {
        let harness = try APNsTestHarness.start()
        // Threads are told apart by identity: a thread started from the I/O thread inherits its name.
        let errors = Mutex<[(code: APNSError.Code, thread: UInt)]>([])
        let text = "not hex!"
        #expect(PushToken(text) == nil)
        harness.stop()
        harness.client.submit([(APNSRequest(pushToken: APNsTestHarness.token(1), topic: APNsTestHarness.topic), { @Sendable result in
            if case .failure(let error) = result { errors.withLock { $0.append((error.code, UInt(pthread_self()))) } }
        })])
        let caller = UInt(pthread_self())
        #expect(errors.withLock { $0 }.map(\.code) == [.shutdown])
        #expect(errors.withLock { $0 }.map(\.thread) == [caller])
        #expect(harness.fake.pushes.isEmpty)
    }
}
