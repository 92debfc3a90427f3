import Foundation
import PassIdentifiers
import PassServerTesting
import Testing

@testable import Storage

@Suite("Events and re-push jobs", .offCooperativePool)
struct EventJobTests {
    @Test(arguments: Backend.allCases)
    func createReadUpdateEvent(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let event = try fixture.makeEvent(now: now)
        #expect(event.id.count == 22)
        #expect(try fixture.store.withSession(.read) { try $0.events.event(id: event.id) } == event)
        #expect(try fixture.store.withSession(.read) { try $0.events.event(id: "missing") } == nil)
        try fixture.makePass(serial: "E1", eventID: event.id)
        try fixture.makePass(serial: "E2", eventID: event.id)

        let unchanged = try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(name: "Concert"), now: now) }
        #expect(unchanged.job == nil)
        let changed = try fixture.store.withSession(.write) {
            try $0.events.updateEvent(id: event.id, change: EventChange(venue: "Arena", endsAt: .some(Date(timeIntervalSince1970: 1_900_003_600))), now: now)
        }
        #expect(changed.event.venue == "Arena")
        #expect(changed.event.endsAt == Date(timeIntervalSince1970: 1_900_003_600))
        #expect(changed.event.revision > event.revision)
        let job = try #require(changed.job)
        #expect(job.state == .pending)
        #expect(job.total == 2)
        #expect(job.kind == Job.repushKind)
        #expect(try fixture.store.withSession(.read) { try $0.jobs.job(id: job.id) } == job)
        #expect(try fixture.store.withSession(.read) { try $0.jobs.jobs(eventID: event.id, limit: 5) }.map(\.id) == [job.id])
        #expect(storageCode { _ = try fixture.store.withSession(.write) { try $0.events.updateEvent(id: "missing", change: EventChange(name: "x"), now: now) } } == .notFound)
    }

    @Test(arguments: Backend.allCases)
    func eventCounts(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let event = try fixture.makeEvent()
        try fixture.makePass(serial: "K1", eventID: event.id)
        try fixture.makePass(serial: "K2", eventID: event.id)
        try fixture.makePass(serial: "K3")
        _ = try fixture.register(device: "d1", token: .fixture("t1"), serial: "K1")
        _ = try fixture.register(device: "d2", token: .fixture("t2"), serial: "K2")
        _ = try fixture.register(device: "d3", token: .fixture("t3"), serial: "K3")
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "K1", change: PassChange(status: .cancelled), now: now)
        }
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "K3", change: PassChange(touch: true), now: now)
        }
        let counts = try fixture.store.withSession(.read) { try $0.events.eventCounts(id: event.id) }
        #expect(counts == EventCounts(tickets: 2, cancelled: 1, registeredDevices: 2, pendingPushes: 1, failedPushes: 0))
    }

    @Test(arguments: Backend.allCases)
    func repushResumesAfterCrashWithoutDoubleBumps(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let event = try fixture.makeEvent()
        var original: [SerialNumber: StoredPass] = [:]
        for index in 0..<25 {
            let pass = try fixture.makePass(serial: "\(String(format: "J%02d", index))", eventID: event.id)
            original[pass.serialNumber] = pass
            _ = try fixture.register(device: "dev\(index)", token: .fixture("tok\(index % 5)"), serial: pass.serialNumber)
        }
        let job = try #require(try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(name: "Renamed"), now: now) }.job)
        let claimed = try #require(try fixture.store.withSession(.write) { try $0.jobs.claimJob(now: now, lease: .seconds(60)) })
        #expect(claimed.id == job.id)
        #expect(claimed.state == .running)
        #expect(try fixture.store.withSession(.write) { try $0.jobs.claimJob(now: now, lease: .seconds(60)) } == nil)
        let first = try fixture.store.withSession(.write) { try $0.jobs.runRepushBatch(jobID: job.id, batchSize: 10, now: now) }
        #expect(first.passesBumped == 10)
        #expect(first.pushTokensEnqueued == 5)
        #expect(first.job.done == 10)
        let firstRevision = try #require(first.revision)

        // The process dies; another opens the store and takes over once the lease expires.
        fixture.store.close()
        let reopened = try fixture.reopen()
        let later = now.addingTimeInterval(120)
        let resumed = try #require(try reopened.withSession(.write) { try $0.jobs.claimJob(now: later, lease: .seconds(60)) })
        #expect(resumed.id == job.id)
        #expect(resumed.cursor == first.job.cursor)
        var batches = 0
        var last = resumed
        while last.state != .done {
            last = try reopened.withSession(.write) { try $0.jobs.runRepushBatch(jobID: job.id, batchSize: 10, now: later) }.job
            batches += 1
            // Ends the loop too: a job that never finishes fails here instead of running forever.
            try #require(batches < 10, "the job is not done after \(batches) batches")
        }
        #expect(last.done == 25)
        #expect(last.total == 25)
        #expect(last.finishedAt != nil)

        let passes = try reopened.withSession(.read) { try $0.passes.passes(eventID: event.id, limit: 100) }
        #expect(passes.count == 25)
        for pass in passes {
            let before = try #require(original[pass.serialNumber])
            #expect(pass.revision > before.revision)
            #expect(pass.modifiedAt > before.modifiedAt)
            // The first ten were bumped once, in the first batch, and never again.
            if pass.serialNumber.rawValue < "J10" { #expect(pass.revision == firstRevision) } else { #expect(pass.revision > firstRevision) }
        }
        // Running a finished job again changes nothing.
        let extra = try reopened.withSession(.write) { try $0.jobs.runRepushBatch(jobID: job.id, batchSize: 10, now: later) }
        #expect(extra.passesBumped == 0)
        reopened.close()
    }
}
