import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Every row of the APNs reply table, answered by the fake over HTTP/2, has its effect in the
/// database: registrations pruned or kept, rows retried, failed or held while sending is halted.
/// Answers about one token (410, BadDeviceToken, DeviceTokenNotForTopic) never halt; see also
/// `PushTokenIsolationTests`.
@Suite("Push dispatcher: the APNs reply table end to end", .offCooperativePool, .timeLimit(.minutes(3)))
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
        let ticket = try #require(try fixture.app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject)
        let pruned = try #require(ticket["prunedRegistrations"] as? [[String: Any]])
        #expect(pruned.count == 1)
        #expect(pruned.first?["status"] as? Int == 410)
        #expect(pruned.first?["reason"] as? String == "Unregistered")
        #expect(try pruned.first?["tokenHash"] as? String == String(PushDispatcher.tokenHash(.hex(phone.pushToken)).prefix(16)))
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
        // The dispatcher counts a batch just after recording it.
        try await eventually("outbox emptied and the 410 counted") {
            try fixture.counts.pending == 0 && fixture.app.application.dispatcher.statistics.pruned >= 1
        }
        #expect(try fixture.registrations(serial) == 1)
        let ticket = try #require(try fixture.app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject)
        #expect((ticket["prunedRegistrations"] as? [Any])?.isEmpty == true, "nothing was pruned")
        #expect(fixture.app.application.dispatcher.statistics.pruned == 1)
        #expect(fixture.app.application.dispatcher.statistics.registrationsPruned.isEmpty, "the registration was renewed after the 410")
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
        #expect(try fixture.log(phone.pushToken).first?.outcome == "pruned")
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
        let reasons = try #require(ready.jsonObject?["reasons"] as? [[String: String]])
        #expect(reasons.count == 1)
        #expect(reasons.first?["component"] == "apns")
        #expect(reasons.first?["message"]?.contains("sending halted: APNs answered \(answer.status) \(answer.reason)") == true)
        #expect(try fixture.app.request("GET", "/metrics").text.contains("passserver_apns_halted 1"))
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
            // Refusals enough for hours of probes: however late this test looks (a busy machine can
            // hold it back for a minute), the fake has not run out of refusals and begun accepting.
            fixture.fake.script(token: phone.pushToken, Array(repeating: .error(status: 403, reason: "BadCertificate"), count: 10_000))
        }
        try fixture.change(serial)
        try await eventually("first round and two probes refused") { fixture.fake.pushes.count >= 7 }
        // Whatever the machine's speed: after the first round, pushes go out one at a time, each
        // a whole pause after the refusal before it (the refusal is recorded after the fake answered).
        let pushes = fixture.fake.pushes.sorted { $0.receivedAt < $1.receivedAt }
        let times = pushes.map(\.receivedAt)
        for index in 5..<times.count where times[index].timeIntervalSince(times[index - 1]) < pause - 0.05 {
            // What the dispatcher saw and what it logged explain an early push.
            let start = times[0]
            let seen = pushes.map { "\($0.token.prefix(8)) \($0.status) +\(String(format: "%.3f", $0.receivedAt.timeIntervalSince(start)))s" }
            let logged = fixture.app.logs.lines.filter { $0.contains("push") || $0.contains("APNs") || $0.contains("record") }.suffix(30)
            Issue.record("""
                push \(index) came too soon: \(seen.joined(separator: ", "))
                dispatcher: \(fixture.app.application.dispatcher.statistics)
                log: \(logged.joined(separator: "\n"))
                """)
        }
        #expect(try fixture.readiness().status == 503)
        #expect(try fixture.counts.pending == 5)
    }

    @Test("400 BadPriority fails that row only: the others are delivered, nothing halts, /readyz stays 200", arguments: Backend.allCases)
    func badPriorityFailsOneRow(backend: Backend) async throws {
        // A halt would pause sending far longer than the test.
        let fixture = try PushFixture(backend) { $0.push.haltPause = 600 }
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredPhone()
        var healthy: [Phone] = []
        for _ in 0..<3 { healthy.append(try fixture.registeredPhone(serial: serial).phone) }
        // Refused again if it were ever retried.
        fixture.fake.script(token: phone.pushToken, Array(repeating: .error(status: 400, reason: "BadPriority"), count: 5))
        try fixture.change(serial)
        try await eventually("the others delivered and the row failed, and counted") {
            try healthy.allSatisfy { fixture.fake.count(token: $0.pushToken) == 1 } && fixture.counts.summary == [0, 0, 1]
                && fixture.app.application.dispatcher.statistics.failed >= 1
        }
        #expect(try fixture.readiness().status == 200)
        let statistics = fixture.app.application.dispatcher.statistics
        #expect(statistics.halted == 0)
        #expect(statistics.failedByReason == ["BadPriority": 1])
        let entry = try #require(try fixture.log(phone.pushToken).first)
        #expect(entry.status == 400)
        #expect(entry.reason == "BadPriority")
        #expect(entry.outcome == "failed")
        #expect(try fixture.registrations(serial) == 4, "a request mistake is not a fact about the token")
        let metrics = try fixture.app.request("GET", "/metrics").text
        #expect(metrics.contains(#"passserver_pushes_failed_total{reason="BadPriority"} 1"#))
        #expect(metrics.contains(#"passserver_pushes_total{outcome="failed"} 1"#))
        #expect(fixture.app.logs.lines.contains { $0.contains("APNs refused pushes as malformed") && $0.contains("BadPriority") })

        // Sending goes on: a later change reaches a new phone at once, and the failed row is not retried.
        let (late, lateSerial) = try fixture.registeredPhone()
        try fixture.change(lateSerial)
        try await eventually("a later push delivered") { fixture.fake.count(token: late.pushToken) == 1 }
        #expect(fixture.fake.pushes.filter { $0.token == phone.pushToken }.count == 1)
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
