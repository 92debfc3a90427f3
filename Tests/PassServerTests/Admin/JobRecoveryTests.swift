import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Re-push jobs survive a crash of the real process and never bump a pass twice.
@Suite("Re-push job: crash recovery and the repush command", .offCooperativePool, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct JobRecoveryTests {
    @Test("SIGKILL mid-job, restart: the job finishes and every pass is bumped exactly once", arguments: Backend.allCases)
    func resumesAfterKill(backend: Backend) async throws {
        let fixture = try ProcessFixture(backend)
        defer { fixture.store.close() }
        let count = 4_000
        let batch = 2
        let (event, passes) = try fixture.event(tickets: count)
        let (_, created) = try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event, change: EventChange(venue: "Kyoto Hall"), now: Date()) }
        let job = try #require(created)
        #expect(job.total == Int64(count))
        // Every revision after this one is handed out by the job: one per batch.
        let counterAfterEdit = try AdminSupport.revisionCounter(fixture.store)
        #expect(passes.allSatisfy { $0.revision < counterAfterEdit })

        let settings = ["JOB_BATCH_SIZE": "\(batch)", "JOB_LEASE": "2s"]
        let first = try fixture.launch(extra: settings)
        let started = await Self.killWhenStarted(pid: first.process.processIdentifier, job: job.id, store: fixture.store)
        first.forceKill()
        #expect(started, "the job never started: \(first.standardError.suffix(2_000))")
        let atKill = try #require(try fixture.store.withSession(.read) { try $0.jobs.job(id: job.id) })
        #expect(atKill.done > 0)
        #expect(atKill.done < atKill.total, "killed before the job finished")
        #expect(atKill.state == .running)

        let second = try fixture.launch(extra: settings)
        defer { second.forceKill() }
        try await eventually("the job done by the second process: \(second.standardError.suffix(2_000))", timeout: 90) {
            try fixture.store.withSession(.read) { try $0.jobs.job(id: job.id) }?.state == .done
        }
        let final = try #require(try fixture.store.withSession(.read) { try $0.jobs.job(id: job.id) })
        #expect(final.done == Int64(count))
        #expect(final.total == Int64(count))

        // Proof of "exactly once": the job took exactly count/batch revisions (one per batch, each
        // batch at most `batch` passes) and every pass carries one of them, so no pass was bumped
        // twice and none was skipped.
        let after = try fixture.store.withSession(.read) { try $0.passes.passes(eventID: event, limit: count + 1) }
        #expect(after.count == count)
        let counterAfterJob = try AdminSupport.revisionCounter(fixture.store)
        #expect(counterAfterJob - counterAfterEdit == Int64(count / batch))
        #expect(after.allSatisfy { $0.revision > counterAfterEdit && $0.revision <= counterAfterJob })
        let groups = Dictionary(grouping: after, by: \.revision)
        #expect(groups.count == count / batch)
        #expect(groups.values.allSatisfy { $0.count == batch })
        // Batches follow the cursor: revisions never decrease along pass ids.
        #expect(zip(after, after.dropFirst()).allSatisfy { $0.revision <= $1.revision })
    }

    /// SIGKILLs `pid` as soon as the job has committed a batch.
    static func killWhenStarted(pid: Int32, job: String, store: any Store) async -> Bool {
        let killed = await ServerProcess.killAsSoonAs { ((try? store.withSession(.read) { try $0.jobs.job(id: job) })?.done ?? 0) > 0 ? pid : nil }
        return killed == pid
    }

    @Test("pass-server repush --event runs the job in the foreground with progress lines", arguments: Backend.allCases)
    func repushCommand(backend: Backend) async throws {
        let fixture = try ProcessFixture(backend)
        defer { fixture.store.close() }
        let (event, passes) = try fixture.event(tickets: 50)
        let before = try #require(passes.map(\.revision).max())

        let result = try PassServerExecutable.run(
            ["repush", "--event", event], environment: ["DATABASE_URL": fixture.databaseURL, "JOB_BATCH_SIZE": "10"]
        )
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let progress = lines.filter { $0.contains("passes (") }
        #expect(progress.count >= 2, "\(lines)")
        #expect(progress.last?.contains("50/50 passes (100%)") == true)
        #expect(lines.last?.hasSuffix("done: 50/50 passes bumped") == true, "\(lines)")
        #expect(!result.standardOutput.contains("\r"), "no progress bar when not on a terminal")

        let jobs = try fixture.store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 5) }
        #expect(jobs.count == 1)
        #expect(jobs.first?.state == .done)
        #expect(jobs.first?.done == 50)
        #expect(try fixture.store.withSession(.read) { try $0.passes.passes(eventID: event, limit: 100) }.allSatisfy { $0.revision > before })

        let unknown = try PassServerExecutable.run(["repush", "--event", "nope"], environment: ["DATABASE_URL": fixture.databaseURL])
        #expect(unknown.status != 0)
        #expect(unknown.standardError.contains("no event"))
    }
}
