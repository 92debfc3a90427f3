import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// PostgreSQL stopped for 10 s under steady traffic (a private cluster: stopping the shared one
/// would break every other test). Requests that need the database get 503 `unavailable` with
/// `Retry-After`, never 500; nothing acknowledged is lost; pushes pending across the outage are
/// delivered after it; `/readyz` follows; the server recovers without a restart, and the outage
/// is logged once each way rather than per attempt.
@Suite("PostgreSQL outage under traffic", .offCooperativePool, .serialized, .timeLimit(.minutes(8)))
struct PostgresOutageTests {
    static let outage: TimeInterval = 10

    @Test("PostgreSQL down for 10 s: 503 with Retry-After, no 500, nothing acknowledged lost, every push delivered after")
    func outageUnderTraffic() async throws {
        let cluster = try await onOwnThread { try TestPostgresCluster() }
        defer { cluster.stop() }
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "passserver-outage"))
        // Slow answers keep pushes in flight when the database goes away.
        let fake = try PushFixture.makeFake(certificates, defaultAnswer: .delayed(seconds: 0.5, then: .success))
        defer { fake.shutdown() }
        let app = try TestApp.start(.postgres, apns: fake, databaseURL: cluster.url, certificates: certificates) { configuration in
            configuration.push.retryBaseDelay = 0.1
            // The traffic registers a new device on one of eight tickets about every request; the
            // default MAX_DEVICES_PER_PASS (10) would replace early acknowledged registrations.
            configuration.maxDevicesPerPass = 10_000
        }
        defer { app.stop() }
        let event = try app.createEvent()
        var holders: [OutageTraffic.Holder] = []
        var serials: [String] = []
        for _ in 0..<8 {
            let serial = try app.issueTicket(event: event)
            serials.append(serial)
            for _ in 0..<2 {
                let phone = Phone(app: app)
                #expect(try phone.register(serial).status == 201)
                holders.append(.init(device: phone.deviceLibraryIdentifier, token: phone.pushToken, serial: serial))
            }
        }

        let traffic = OutageTraffic(app: app, serials: serials, holders: holders)
        traffic.start()
        await AdminSupport.pause(2)
        let downAt = Date()
        try await onOwnThread { try cluster.stopServer() }
        await AdminSupport.pause(Self.outage)
        try await onOwnThread { try cluster.startServer() }
        let upAt = Date()
        // A failed wait is recorded; the traffic below still stops and what it saw is still checked.
        _ = try? await eventually("/readyz turning 200 after the outage", timeout: 60) { (try? app.request("GET", "/readyz").status) == 200 }
        await AdminSupport.pause(3)
        await offPool { traffic.stop() }
        let exchanges = traffic.exchanges

        // Every answer is a success or a 503 that says `unavailable` and when to come back.
        let unanswered = exchanges.filter { $0.status == 0 }
        #expect(unanswered.isEmpty, "no answer: \(unanswered.prefix(3).compactMap(\.failure))")
        let served = exchanges.filter { $0.kind != .readiness }
        let unexpected = served.filter { ![200, 201, 204, 304, 503].contains($0.status) }
        #expect(unexpected.isEmpty, "statuses \(Set(unexpected.map(\.status)))")
        let refused = served.filter { $0.status == 503 }
        #expect(refused.allSatisfy { $0.retryAfter == "5" && $0.errorCode == "unavailable" })
        for kind in [OutageTraffic.Kind.registration, .list, .edit] {
            let answered = served.filter { $0.kind == kind }
            #expect(answered.contains { $0.status == 503 }, "\(kind) never met the outage")
            #expect(answered.contains { $0.status < 300 && $0.sentAt > upAt }, "\(kind) did not recover")
            #expect(answered.contains { $0.status < 300 && $0.answeredAt < downAt }, "\(kind) never worked before")
        }
        // 503s only while the database was away (plus a margin for requests in flight, on a busy machine).
        #expect(refused.allSatisfy { $0.answeredAt > downAt && $0.sentAt < upAt.addingTimeInterval(10) })

        // /readyz was 503 during the outage and is 200 after it.
        let probes = exchanges.filter { $0.kind == .readiness }
        #expect(probes.contains { $0.status == 503 && $0.sentAt > downAt && $0.answeredAt < upAt })
        #expect(probes.filter { $0.sentAt > upAt.addingTimeInterval(1) }.last?.status == 200)

        // Every acknowledged registration is stored.
        let acknowledged = served.filter { $0.kind == .registration && ($0.status == 201 || $0.status == 200) }
        #expect(acknowledged.count > 10)
        for exchange in acknowledged {
            let device = try #require(exchange.device)
            let listed = try app.store.withSession(.read) {
                try $0.registrations.serials(deviceLibraryIdentifier: "\(device)", passTypeIdentifier: app.passType, updatedAfter: nil)
            }
            #expect(listed.serialNumbers.map(\.rawValue) == [exchange.serial].compactMap { $0 }, "registration of \(device) acknowledged but not stored")
        }

        // Every push enqueued before or during the outage is delivered after it: each holder's
        // token got a push that arrived after the last accepted edit of its ticket was sent.
        try await eventually("outbox drained", timeout: 90) { try app.store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }.summary == [0, 0, 0] }
        let edits = served.filter { $0.kind == .edit && $0.status == 200 }
        let lastEdit = Dictionary(grouping: edits, by: { $0.serial ?? "" }).mapValues { $0.map(\.sentAt).max() ?? .distantPast }
        let pushes = fake.pushes.filter { $0.status == 200 }
        #expect(edits.contains { $0.answeredAt < downAt }, "edits before the outage")
        for holder in holders {
            guard let editedAt = lastEdit[holder.serial] else { continue }
            #expect(pushes.contains { $0.token == holder.token && $0.receivedAt >= editedAt }, "no push after the last edit of \(holder.serial)")
        }

        // Background work resumes: a re-push job created after the outage runs to the end.
        let edited = try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"After the outage"}"#)
        let job = try #require((edited.jsonObject?["job"] as? [String: Any])?["id"] as? String)
        try await eventually("job done after the outage", timeout: 30) { try app.store.withSession(.read) { try $0.jobs.job(id: job) }?.state == .done }

        // Logged once per change of state, never per attempt (per attempt would be a line every
        // 0.25–5 s of the outage, and one per request for the pool). A second, short outage seen
        // after the restart (a timeout on a very busy machine) would be logged as such: allowed.
        let lines = app.logs.lines
        func count(_ text: String) -> Int { lines.filter { $0.contains(text) }.count }
        for (began, ended) in [
            ("database connection lost", "database connection re-established"),
            ("database unavailable; push dispatch waits for it", "database available again; push dispatch resumes"),
            ("database unavailable; re-push jobs wait for it", "database available again; re-push jobs resume"),
        ] {
            #expect((1...2).contains(count(began)), "\(began): \(count(began))")
            #expect(count(ended) == count(began), "\(ended): \(count(ended))")
        }
        #expect(count("cannot claim pushes") == 0)
        #expect(count("cannot record push outcomes") == 0)
        #expect(count("handler failed") == 0, "\(lines.filter { $0.contains("handler failed") })")
        print("outage: \(exchanges.count) requests, \(refused.count) answered 503, \(acknowledged.count) registrations, \(edits.count) edits, \(pushes.count) pushes")
    }
}
