import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Two real `pass-server serve` processes on one PostgreSQL database, both running the scheduler:
/// an announcement scheduled through one and an event edit scheduled through the other are each
/// applied once, within 5 s of their time, by one of the two; every phone is pushed once for the
/// announcement (to the fake APNs over TLS + HTTP/2) and holds it after fetching.
@Suite("Scheduled actions across two serve processes", .offCooperativePool, .serialized, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct ScheduledScaleOutTests {
    static let passCount = 40

    @Test("a scheduled announcement and a scheduled edit, two processes: each applied once, in time")
    func appliedOnce() async throws {
        let fixture = try await offPool { try ProcessFixture(.postgres) }
        let fake = try PushFixture.makeFake(fixture.certificates, defaultAnswer: .success)
        var servers: [ServerProcess] = []
        defer {
            for server in servers where server.process.isRunning { server.forceKill() }
            fake.shutdown()
            fixture.store.close()
        }
        let (event, passes) = try await offPool { try fixture.event(tickets: Self.passCount) }
        let tokens = passes.map { _ in Phone.randomPushToken() }
        try await offPool {
            try fixture.store.transaction { session in
                for (pass, token) in zip(passes, tokens) {
                    _ = try session.registrations.upsertRegistration(
                        deviceLibraryIdentifier: "device\(pass.id)", pushToken: .hex(token), passTypeIdentifier: pass.passTypeIdentifier,
                        serialNumber: pass.serialNumber, now: Date()
                    )
                }
            }
        }
        let adminToken = AdminAuthentication.newToken()
        _ = try fixture.store.withSession(.write) { try $0.admin.createAdminToken(name: "scheduled", tokenHash: TokenVault.hash(adminToken), now: Date()) }
        let environment = PushCrashTests.environment(fixture.certificates, databaseURL: fixture.databaseURL, fake: fake).merging(["LOG_LEVEL": "info"]) { $1 }
        for _ in 0..<2 { servers.append(try ServerProcess(["serve"], environment: environment, directory: fixture.directory)) }
        let ports = [try await servers[0].port(), try await servers[1].port()]

        /// Posts to the admin API of the server on `port`; returns the new resource's id.
        @Sendable func post(_ port: Int, _ path: String, _ body: String) throws -> String {
            let response = try TestClient(port: port, timeout: 30).request(
                "POST", path, headers: [("Authorization", "Bearer \(adminToken)"), ("Content-Type", "application/json")], body: Array(body.utf8)
            )
            guard response.status == 201, let id = response.jsonObject?["id"] as? String else {
                throw AdminSupport.Failure(description: "\(path) answered \(response.status) \(response.text)")
            }
            return id
        }
        let start = Date()
        let announcement = try await offPool {
            try post(ports[0], "/admin/v1/events/\(event)/announcements", #"{"message":"Doors open at 18:00","sendAt":"\#(ISODate.format(start.addingTimeInterval(5)))"}"#)
        }
        let edit = try await offPool {
            try post(ports[1], "/admin/v1/events/\(event)/scheduled-changes", #"{"applyAt":"\#(ISODate.format(start.addingTimeInterval(12)))","venue":"Second Hall"}"#)
        }
        let store = fixture.store

        // The announcement: applied once, within 5 s, and every phone pushed once for it.
        try await ScaleOutRepushTests.wait("the announcement applied and its pushes delivered", timeout: 60) {
            guard let action = try store.withSession(.read, { try $0.schedule.scheduledAction(id: announcement) }), action.state == .applied,
                let job = action.jobID, try store.withSession(.read, { try $0.jobs.job(id: job) })?.state == .done
            else { return false }
            return try SchedulingSupport.outboxDrained(store)
        }
        let sent = try #require(try store.withSession(.read) { try $0.schedule.scheduledAction(id: announcement) })
        #expect(sent.finishedAt.map { $0 >= sent.dueAt && $0 <= sent.dueAt.addingTimeInterval(5) } == true, "sent within 5 s of its time")
        let afterAnnouncement = Dictionary(grouping: fake.pushes.filter { $0.status == 200 }, by: \.token).mapValues(\.count)
        #expect(tokens.allSatisfy { afterAnnouncement[$0] == 1 }, "every phone pushed exactly once")
        #expect(afterAnnouncement.count == Self.passCount)
        let pass = passes[7]
        let token = try fixture.vault.authenticationToken(passType: pass.passTypeIdentifier, serial: pass.serialNumber).rawValue
        let fetched = try await offPool {
            try TestClient(port: ports[1], timeout: 30).request(
                "GET", "/v1/passes/\(pass.passTypeIdentifier)/\(pass.serialNumber)", headers: [("Authorization", "ApplePass \(token)")]
            )
        }
        #expect(fetched.status == 200)
        let field = AdminSupport.field("announcement", in: try PassArchive.passJSON(fetched.body))
        #expect(field?["value"] as? String == "Doors open at 18:00" && field?["changeMessage"] as? String == "%@")

        // The edit: applied once, within 5 s, as one re-push job.
        try await ScaleOutRepushTests.wait("the edit applied", timeout: 60) {
            try store.withSession(.read) { try $0.schedule.scheduledAction(id: edit) }?.state == .applied
        }
        let applied = try #require(try store.withSession(.read) { try $0.schedule.scheduledAction(id: edit) })
        #expect(applied.finishedAt.map { $0 >= applied.dueAt && $0 <= applied.dueAt.addingTimeInterval(5) } == true, "applied within 5 s of its time")
        #expect(try store.withSession(.read) { try $0.events.event(id: event) }?.venue == "Second Hall")

        // Once each: one announcement row, two jobs in all, and one line of one process per
        // action, read once both processes have stopped (a line is written after its commit, and
        // the log is written in batches).
        #expect(try store.withSession(.read) { try $0.announcements.announcements(eventID: event) }.map(\.id) == [announcement])
        let jobs = try store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 10) }
        #expect(jobs.map(\.kind).sorted() == [Job.announcementKind, Job.repushKind])
        for server in servers { server.signal(SIGTERM) }
        for server in servers { #expect(await server.waitForExit(timeout: 30) == 0) }
        func appliedLines(_ id: String) -> Int {
            servers.map { $0.standardError.split(separator: "\n").filter { $0.contains("scheduled action applied") && $0.contains("scheduled.id=\(id)") }.count }
                .reduce(0, +)
        }
        #expect(appliedLines(announcement) == 1)
        #expect(appliedLines(edit) == 1)
    }
}
