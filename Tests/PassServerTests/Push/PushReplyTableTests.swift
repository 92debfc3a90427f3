import Foundation
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Every row of the APNs reply table, answered by the fake over HTTP/2, has its effect in the
/// database: registrations pruned or kept, rows retried, failed or held while sending is halted.
@Suite("Push dispatcher: the APNs reply table end to end")
struct PushReplyTableTests {
    static func milliseconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1_000) }

    @Test("410 stamped after the registration's last update deletes it", arguments: Backend.allCases)
    func unregisteredPrunes(backend: Backend) async throws {
        let fixture = try PushFixture(backend)
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredPhone()
        fixture.fake.script(token: phone.pushToken, [.unregistered(timestampMilliseconds: Self.milliseconds(Date().addingTimeInterval(5)))])
        try fixture.change(serial)
        try await eventually("registration deleted") { try fixture.registrations(serial) == 0 }
        try await eventually("outbox emptied") { try fixture.counts.pending == 0 }
        #expect(try fixture.log(phone.pushToken).map(\.status) == [410])
        #expect(try phone.changedSerials().status == 204 || phone.changedSerials().serials.isEmpty)
    }

    @Test("410 stamped before a re-registration keeps the registration", arguments: Backend.allCases)
    func unregisteredBeforeReRegistrationKeeps(backend: Backend) async throws {
        let fixture = try PushFixture(backend)
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredPhone()
        // APNs saw the token die after the first registration, then the phone registered again.
        try await Task.sleep(for: .seconds(0.3))
        let stamp = Date()
        try await Task.sleep(for: .seconds(0.3))
        #expect(try phone.register(serial).status == 200)
        fixture.fake.script(token: phone.pushToken, [.unregistered(timestampMilliseconds: Self.milliseconds(stamp))])
        try fixture.change(serial)
        try await eventually("410 answered and recorded") { try fixture.log(phone.pushToken).map(\.status) == [410] }
        try await eventually("outbox emptied") { try fixture.counts.pending == 0 }
        #expect(try fixture.registrations(serial) == 1)
    }

    @Test("400 BadDeviceToken deletes the registration", arguments: Backend.allCases)
    func badDeviceToken(backend: Backend) async throws {
        let fixture = try PushFixture(backend)
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredPhone()
        let (healthy, _) = try fixture.registeredPhone(serial: serial)
        fixture.fake.script(token: phone.pushToken, [.error(status: 400, reason: "BadDeviceToken")])
        try fixture.change(serial)
        try await eventually("bad token pruned") { try fixture.registrations(serial) == 1 }
        try await eventually("outbox emptied") { try fixture.counts.pending == 0 }
        #expect(fixture.fake.count(token: healthy.pushToken) == 1)
        #expect(try fixture.log(phone.pushToken).first?.reason == "BadDeviceToken")
    }

    @Test("400 BadTopic and 403 BadCertificate halt sending, keep the row and fail /readyz",
          arguments: Backend.allCases, [(400, "BadTopic"), (403, "BadCertificate")])
    func halt(backend: Backend, answer: (status: Int, reason: String)) async throws {
        // A pause far longer than the test, so a slow machine cannot reach its end.
        let fixture = try PushFixture(backend) { $0.push.haltPause = 600 }
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredPhone()
        #expect(try fixture.readiness().status == 200)
        fixture.fake.script(token: phone.pushToken, [.error(status: answer.status, reason: answer.reason)])
        try fixture.change(serial)
        try await eventually("sending halted") { try fixture.readiness().status == 503 }
        let ready = try fixture.readiness()
        #expect(ready.text.contains(answer.reason))
        #expect(try fixture.counts.pending == 1)
        #expect(try fixture.log(phone.pushToken).first?.status == answer.status)

        // During the pause nothing is sent, not even other passes' pushes.
        let (other, otherSerial) = try fixture.registeredPhone()
        try fixture.change(otherSerial)
        try await Task.sleep(for: .seconds(1))
        #expect(fixture.fake.pushes.filter { $0.token == other.pushToken }.isEmpty)
        #expect(fixture.fake.pushes.count == 1)
        #expect(try fixture.counts.pending == 2)
        #expect(try fixture.readiness().status == 503)
    }

    @Test("after a halt's pause, an accepted probe resumes sending and /readyz recovers", arguments: Backend.allCases)
    func resumeAfterPause(backend: Backend) async throws {
        let fixture = try PushFixture(backend) { $0.push.haltPause = 2 }
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredPhone()
        let (other, otherSerial) = try fixture.registeredPhone()
        fixture.fake.script(token: phone.pushToken, [.error(status: 403, reason: "BadCertificate")])
        try fixture.change(serial)
        // The pause is short, so /readyz may already be green again when polled: count halts instead.
        try await eventually("sending halted") { fixture.app.application.dispatcher.statistics.halted >= 1 }
        try fixture.change(otherSerial)
        try await eventually("both delivered after the pause") {
            fixture.fake.count(token: phone.pushToken) == 1 && fixture.fake.count(token: other.pushToken) == 1
        }
        try await eventually("outbox emptied") { try fixture.counts.pending == 0 }
        try await eventually("ready again") { try fixture.readiness().status == 200 }
    }

    @Test("after the pause one probe goes out, and a second refusal halts again", arguments: Backend.allCases)
    func singleProbe(backend: Backend) async throws {
        let pause = 2.0
        let fixture = try PushFixture(backend) { $0.push.haltPause = Int(pause) }
        defer { fixture.stop() }
        let serial = try fixture.app.issueTicket(event: fixture.event)
        for _ in 0..<5 {
            let (phone, _) = try fixture.registeredPhone(serial: serial)
            fixture.fake.script(token: phone.pushToken, Array(repeating: .error(status: 403, reason: "BadCertificate"), count: 10))
        }
        try fixture.change(serial)
        try await eventually("first round and two probes refused") { fixture.fake.pushes.count >= 7 }
        // Whatever the machine's speed: after the first round, pushes go out one at a time, each
        // a whole pause after the refusal before it (the refusal is recorded after the fake answered).
        let times = fixture.fake.pushes.map(\.receivedAt).sorted()
        for index in 5..<times.count {
            #expect(times[index].timeIntervalSince(times[index - 1]) >= pause - 0.05, "push \(index) came too soon")
        }
        #expect(try fixture.readiness().status == 503)
        #expect(try fixture.counts.pending == 5)
    }

    @Test("429 and 503 are retried with backoff and then delivered",
          arguments: Backend.allCases, [(429, "TooManyRequests"), (503, "ServiceUnavailable")])
    func retried(backend: Backend, answer: (status: Int, reason: String)) async throws {
        let fixture = try PushFixture(backend)
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredPhone()
        fixture.fake.script(token: phone.pushToken, [.error(status: answer.status, reason: answer.reason), .error(status: answer.status, reason: answer.reason)])
        try fixture.change(serial)
        try await eventually("delivered after retries") { fixture.fake.count(token: phone.pushToken) == 1 }
        try await eventually("outbox emptied") { try fixture.counts.pending == 0 }
        #expect(fixture.fake.count(token: phone.pushToken, status: answer.status) == 2)
        #expect(try fixture.log(phone.pushToken).map(\.status) == [200, answer.status, answer.status])
        let attempts = fixture.fake.pushes.filter { $0.token == phone.pushToken }.map(\.receivedAt)
        #expect(attempts.count == 3)
        if attempts.count == 3 {
            // Full jitter never goes below half the base delay (0.1 s here).
            #expect(attempts[1].timeIntervalSince(attempts[0]) >= 0.04)
            #expect(attempts[2].timeIntervalSince(attempts[1]) >= 0.04)
        }
    }

    @Test("a push retried past PUSH_MAX_RETRY_AGE is marked failed", arguments: Backend.allCases)
    func failsPastMaxAge(backend: Backend) async throws {
        let fixture = try PushFixture(backend, defaultAnswer: .error(status: 503, reason: "ServiceUnavailable")) {
            $0.push.maxRetryAge = 2
            $0.push.retryBaseDelay = 0.3
        }
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredPhone()
        try fixture.change(serial)
        try await eventually("row failed") { try fixture.counts.summary == [0, 0, 1] }
        let sent = fixture.fake.count(token: phone.pushToken, status: 503)
        #expect(sent >= 1)
        try await Task.sleep(for: .seconds(1))
        #expect(fixture.fake.count(token: phone.pushToken, status: 503) == sent, "a failed row is not sent again")
        #expect(try fixture.log(phone.pushToken).count == sent)

        // A later change revives the failed row as pending and it is delivered.
        fixture.fake.script(token: phone.pushToken, [.success])
        try fixture.change(serial)
        try await eventually("revived and delivered") { fixture.fake.count(token: phone.pushToken) == 1 }
        try await eventually("outbox emptied") { try fixture.counts.summary == [0, 0, 0] }
    }
}
