import FakeAPNs
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Two real `pass-server serve` processes on one PostgreSQL database share an event edit of
/// 5,000 passes: the re-push job runs once (each pass bumped exactly once, proven from the
/// revision counter), every token is pushed (to the fake APNs over TLS + HTTP/2), and duplicates
/// come only from pushes in flight in a process that was killed.
@Suite("Re-push job across two serve processes", .offCooperativePool, .serialized, .timeLimit(.minutes(10)), .tags(.endToEnd))
struct ScaleOutRepushTests {
    static let passCount = 5_000

    /// The database, the fake APNs, the event with one registered phone per pass, and an admin token.
    struct Setup {
        let fixture: ProcessFixture
        let fake: FakeAPNs
        let event: String
        let tokens: [String]
        let adminToken: String

        /// What it starts is stopped again if a later step fails.
        init() throws {
            fixture = try ProcessFixture(.postgres)
            do {
                // Answers take a moment, so a killed process has pushes in flight.
                fake = try PushFixture.makeFake(fixture.certificates, defaultAnswer: .delayed(seconds: 0.2, then: .success))
            } catch {
                fixture.store.close()
                throw error
            }
            do {
                let (event, passes) = try fixture.event(tickets: ScaleOutRepushTests.passCount)
                self.event = event
                let tokens = passes.map { _ in Phone.randomPushToken() }
                try fixture.store.transaction { session in
                    for (pass, token) in zip(passes, tokens) {
                        _ = try session.registrations.upsertRegistration(
                            deviceLibraryIdentifier: "device\(pass.id)", pushToken: .hex(token),
                            passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, now: Date()
                        )
                    }
                }
                self.tokens = tokens
                adminToken = AdminAuthentication.newToken()
                _ = try fixture.store.withSession(.write) { try $0.admin.createAdminToken(name: "scale-out", tokenHash: TokenVault.hash(adminToken), now: Date()) }
            } catch {
                fake.shutdown()
                fixture.store.close()
                throw error
            }
        }

        /// A `serve` process sending to the fake. Short leases make a killed process's job and
        /// pushes come back quickly; long ones rule out re-sends while both processes live.
        func launch(jobBatch: Int, jobLease: String, pushLease: String) throws -> ServerProcess {
            let environment = PushCrashTests.environment(fixture.certificates, databaseURL: fixture.databaseURL, fake: fake)
                .merging([
                    "LOG_LEVEL": "info", "JOB_BATCH_SIZE": "\(jobBatch)", "JOB_LEASE": jobLease, "PUSH_LEASE": pushLease,
                    // Generous: a push retried after a timeout on a busy machine would count as a duplicate.
                    "APNS_REQUEST_TIMEOUT": "10s",
                ]) { $1 }
            return try ServerProcess(["serve"], environment: environment, directory: fixture.directory)
        }

        /// Starts two `serve` processes (see `launch`), edits the event through the first one's
        /// admin API, and runs `body` with the servers, the job, and the revision counter after the
        /// edit (which takes one). Then stops the servers, the fake and the store (`stop`) however
        /// it went: `body` returned, failed an expectation, or threw, or starting failed midway.
        /// Rethrows the error, if any, after the stop.
        func withServers(
            jobBatch: Int, jobLease: String, pushLease: String,
            _ body: (_ servers: [ServerProcess], _ job: String, _ counterAfterEdit: Int64) async throws -> Void
        ) async throws {
            var servers: [ServerProcess] = []
            let outcome: Result<Void, any Error>
            do {
                for _ in 0..<2 { servers.append(try launch(jobBatch: jobBatch, jobLease: jobLease, pushLease: pushLease)) }
                let port = try await servers[0].port()
                _ = try await servers[1].port()
                let counterBefore = try AdminSupport.revisionCounter(fixture.store)
                let job = try editEvent(on: port)
                try await body(servers, job, counterBefore + 1)
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            await stop(servers)
            try outcome.get()
        }

        /// Edits the event through the admin API on `port`; returns the job id.
        func editEvent(on port: Int) throws -> String {
            let response = try TestClient(port: port, timeout: 30).request(
                "PATCH", "/admin/v1/events/\(event)",
                headers: [("Authorization", "Bearer \(adminToken)"), ("Content-Type", "application/json")],
                body: Array(#"{"venue":"Second Hall"}"#.utf8)
            )
            guard response.status == 200, let job = (response.jsonObject?["job"] as? [String: Any])?["id"] as? String else {
                throw AdminSupport.Failure(description: "event edit answered \(response.status) \(response.text)")
            }
            return job
        }

        /// Pushes answered 200, per token.
        var delivered: [String: Int] {
            Dictionary(grouping: fake.pushes.filter { $0.status == 200 }, by: \.token).mapValues(\.count)
        }

        /// Each pass bumped exactly once: the job took one revision per batch, every pass carries
        /// one of them, and each revision covers one full batch of passes.
        func expectBumpedOnce(since counterAfterEdit: Int64, batch: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let passes = try fixture.store.withSession(.read) { try $0.passes.passes(eventID: event, limit: ScaleOutRepushTests.passCount + 1) }
            let counter = try AdminSupport.revisionCounter(fixture.store)
            let batches = ScaleOutRepushTests.passCount / batch
            #expect(passes.count == ScaleOutRepushTests.passCount, sourceLocation: sourceLocation)
            #expect(counter - counterAfterEdit == Int64(batches), "revisions taken by the job", sourceLocation: sourceLocation)
            #expect(passes.allSatisfy { $0.revision > counterAfterEdit && $0.revision <= counter }, sourceLocation: sourceLocation)
            let groups = Dictionary(grouping: passes, by: \.revision)
            #expect(groups.count == batches, sourceLocation: sourceLocation)
            #expect(groups.values.allSatisfy { $0.count == batch }, sourceLocation: sourceLocation)
        }

        func stop(_ servers: [ServerProcess]) async {
            for server in servers where server.process.isRunning { server.signal(SIGTERM) }
            for server in servers {
                let status = await server.waitForExit(timeout: 30)
                if status == nil { server.forceKill() }
            }
            fake.shutdown()
            fixture.store.close()
        }
    }

    /// Polls `condition` every 100 ms on a thread of its own until it holds; throws after `timeout`
    /// seconds. These waits last long and query the database: they must not hold the cooperative
    /// pool that other tests poll on.
    static func wait(_ what: String, timeout: TimeInterval, _ condition: @escaping @Sendable () throws -> Bool) async throws {
        try await onOwnThread {
            let deadline = Date().addingTimeInterval(timeout)
            while try !condition() {
                guard Date() < deadline else { throw AdminSupport.Failure(description: "timed out waiting: \(what)") }
                usleep(100_000)
            }
        }
    }

    static func startedLines(_ server: ServerProcess) -> Int {
        server.standardError.split(separator: "\n").filter { $0.contains("re-push job started") }.count
    }

    @Test("event edit of 5,000 passes with two processes: the job runs once, every token pushed once")
    func bothAlive() async throws {
        let setup = try await onOwnThread { try Setup() }
        let batch = 250
        let store = setup.fixture.store
        try await setup.withServers(jobBatch: batch, jobLease: "60s", pushLease: "60s") { servers, job, counterAfterEdit in
            try await Self.wait("job done", timeout: 120) { try store.withSession(.read) { try $0.jobs.job(id: job) }?.state == .done }
            try await Self.wait("outbox drained", timeout: 180) { try store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }.summary == [0, 0, 0] }
            let final = try #require(try store.withSession(.read) { try $0.jobs.job(id: job) })
            #expect(final.done == Int64(Self.passCount))
            try setup.expectBumpedOnce(since: counterAfterEdit, batch: batch)
            #expect(servers.map(Self.startedLines).reduce(0, +) == 1, "the job was started once, by one process")

            let delivered = setup.delivered
            #expect(setup.tokens.allSatisfy { delivered[$0] == 1 }, "every token pushed exactly once")
            #expect(delivered.count == Self.passCount)
        }
    }

    @Test("SIGKILL the process running the job: the other finishes it after the lease, every token pushed")
    func oneKilledMidJob() async throws {
        let setup = try await onOwnThread { try Setup() }
        let batch = 25
        let store = setup.fixture.store
        try await setup.withServers(jobBatch: batch, jobLease: "3s", pushLease: "25s") { servers, job, counterAfterEdit in
            // Once a tenth of the passes are bumped, so the killed process has pushes of its own in flight.
            let killed = try #require(
                await Self.killRunner(of: job, among: servers, store: store, after: Int64(Self.passCount / 10)), "no process was seen running the job"
            )
            let survivor = servers[1 - killed]
            // Pushes claimed at the kill: the dead process's may have reached the fake unrecorded.
            let inFlightAtKill = try store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }.inFlight
            let atKill = try #require(try store.withSession(.read) { try $0.jobs.job(id: job) })
            #expect(atKill.done > 0 && atKill.done < atKill.total, "killed mid-job (\(atKill.done)/\(atKill.total))")

            try await Self.wait("job done by the other process", timeout: 120) { try store.withSession(.read) { try $0.jobs.job(id: job) }?.state == .done }
            try await Self.wait("outbox drained", timeout: 180) { try store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }.summary == [0, 0, 0] }
            #expect(Self.startedLines(survivor) == 1, "the survivor resumed the job")
            let final = try #require(try store.withSession(.read) { try $0.jobs.job(id: job) })
            #expect(final.done == Int64(Self.passCount))
            try setup.expectBumpedOnce(since: counterAfterEdit, batch: batch)

            let delivered = setup.delivered
            #expect(setup.tokens.allSatisfy { (delivered[$0] ?? 0) >= 1 }, "every token pushed")
            let duplicates = delivered.values.reduce(0) { $0 + $1 - 1 }
            #expect(duplicates <= inFlightAtKill, "\(duplicates) duplicates, \(inFlightAtKill) in flight at the kill")
            print("scale-out kill: job at \(atKill.done)/\(atKill.total) when killed, \(inFlightAtKill) pushes in flight, \(duplicates) sent twice")
        }
    }

    /// SIGKILLs whichever process logged that it started `job`, as soon as the job has bumped
    /// `after` passes; returns its index.
    static func killRunner(of job: String, among servers: [ServerProcess], store: any Store, after: Int64) async -> Int? {
        let pids = servers.map(\.process.processIdentifier)
        let logs = servers.map(\.errorPath)
        let killed = await ServerProcess.killAsSoonAs {
            guard let current = try? store.withSession(.read, { try $0.jobs.job(id: job) }), current.done >= after else { return nil }
            let runner = logs.firstIndex { ((try? String(contentsOfFile: $0, encoding: .utf8)) ?? "").contains("re-push job started") }
            return runner.map { pids[$0] }
        }
        guard let killed, let index = pids.firstIndex(of: killed) else { return nil }
        servers[index].forceKill()
        return index
    }
}
