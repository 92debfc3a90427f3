import Foundation
import PassIdentifiers
import PassServerTesting
import Synchronization
import Testing

@testable import Storage

/// Scheduled actions and announcements in the store (migration 24), on both backends: due rows
/// claimed in due order inside the transaction that applies them, each finished once however
/// many claimers race; a row held by one claimer is skipped by another (PostgreSQL); an
/// announcement on the event row, and its job bumping the active passes only.
@Suite("Scheduled actions and announcements", .offCooperativePool)
struct ScheduledActionTests {
    static func action(_ event: String, due: Date, kind: ScheduledAction.Kind = .eventEdit, id: String = UUID().uuidString) -> ScheduledAction {
        ScheduledAction(id: id, eventID: event, kind: kind, dueAt: due, payload: #"{"venue":"x"}"#, createdAt: Date(), updatedAt: Date())
    }

    @Test(arguments: Backend.allCases)
    func claimsDueRowsInOrder(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let now = Date()
        let late = Self.action(event.id, due: now.addingTimeInterval(-5), id: "late")
        let later = Self.action(event.id, due: now.addingTimeInterval(-1), id: "later")
        let future = Self.action(event.id, due: now.addingTimeInterval(60), kind: .announcement, id: "future")
        try fixture.store.withSession(.write) { session in
            for action in [later, future, late] { try session.schedule.insertScheduledAction(action) }
        }
        #expect(try fixture.store.withSession(.read) { try $0.schedule.nextScheduledDue() }.map { abs($0.timeIntervalSince(late.dueAt)) < 0.002 } == true)
        var claimed: [String] = []
        while let id = try fixture.store.transaction({ session -> String? in
            guard let action = try session.schedule.claimDueScheduledAction(now: now) else { return nil }
            _ = try session.schedule.finishScheduledAction(id: action.id, state: .applied, jobID: "job-\(action.id)", now: now)
            return action.id
        }) {
            claimed.append(id)
        }
        #expect(claimed == ["late", "later"], "due rows, longest due first; the future one waits")
        let applied = try #require(try fixture.store.withSession(.read) { try $0.schedule.scheduledAction(id: "late") })
        #expect(applied.state == .applied && applied.jobID == "job-late" && applied.finishedAt != nil)
        // Only a pending row can be finished or changed.
        #expect(storageCode { _ = try fixture.store.withSession(.write) { try $0.schedule.finishScheduledAction(id: "late", state: .cancelled, now: now) } } == .notFound)
        #expect(storageCode { _ = try fixture.store.withSession(.write) { try $0.schedule.updateScheduledAction(id: "late", dueAt: now, payload: "{}", now: now) } } == .notFound)
        let moved = try fixture.store.withSession(.write) { try $0.schedule.updateScheduledAction(id: "future", dueAt: now.addingTimeInterval(-1), payload: "{}", now: now) }
        #expect(moved.payload == "{}")
        #expect(try fixture.store.transaction { try $0.schedule.claimDueScheduledAction(now: now) }?.id == "future", "moved to now: due")
        let counts = try fixture.store.withSession(.read) { try $0.schedule.scheduledActionCounts() }
        #expect(counts.count(.eventEdit, .applied) == 2 && counts.count(.announcement, .pending) == 1 && counts.count(.eventEdit, .pending) == 0)
        #expect(try fixture.store.withSession(.read) { try $0.schedule.scheduledActions(eventID: event.id, kind: .eventEdit, states: [.applied]) }.map(\.id) == ["late", "later"])
    }

    @Test("racing claimers finish every row exactly once", arguments: Backend.allCases)
    func racingClaimers(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let now = Date()
        let ids = (0..<40).map { "row-\($0)" }
        try fixture.store.withSession(.write) { session in
            for (index, id) in ids.enumerated() { try session.schedule.insertScheduledAction(Self.action(event.id, due: now.addingTimeInterval(-Double(index)), id: id)) }
        }
        let finished = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    while let id = try fixture.store.transaction({ session -> String? in
                        guard let action = try session.schedule.claimDueScheduledAction(now: now) else { return nil }
                        // Work inside the claim, as applying an event edit is.
                        usleep(2_000)
                        return try session.schedule.finishScheduledAction(id: action.id, state: .applied, now: now).id
                    }) {
                        finished.withLock { $0.append(id) }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 120) == .success)
        #expect(failures.withLock { $0 }.isEmpty)
        let done = finished.withLock { $0 }
        #expect(done.count == ids.count && Set(done) == Set(ids), "each row finished once: \(done.count)")
    }

    @Test("a row one transaction holds is skipped by another claimer, not waited for (PostgreSQL)")
    func heldRowSkipped() throws {
        let fixture = try StoreFixture(.postgres)
        let event = try fixture.makeEvent()
        let now = Date()
        try fixture.store.withSession(.write) { try $0.schedule.insertScheduledAction(Self.action(event.id, due: now.addingTimeInterval(-1), id: "held")) }
        let other = try fixture.reopen()
        defer { other.close() }
        try fixture.store.transaction { (session: StoreSession) throws -> Void in
            #expect(try session.schedule.claimDueScheduledAction(now: now)?.id == "held")
            let started = Date()
            #expect(try other.transaction { try $0.schedule.claimDueScheduledAction(now: now) } == nil, "held by the first: skipped")
            #expect(Date().timeIntervalSince(started) < 5, "without waiting for it")
        }
        // Released without being finished (the first rolled back or crashed): claimable again.
        #expect(try other.transaction { try $0.schedule.claimDueScheduledAction(now: now) }?.id == "held")
    }

    @Test("the event row carries the announcement; its job bumps the active passes only", arguments: Backend.allCases)
    func announcementJob(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let passes = try (0..<3).map { try fixture.makePass(serial: "A\($0)", eventID: event.id) }
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: passes[1].serialNumber, change: PassChange(status: .cancelled), now: Date())
        }
        let before = try fixture.store.withSession(.read) { try $0.passes.passes(eventID: event.id, limit: 10) }
        let announcement = EventAnnouncement(id: "a1", message: "Doors at 18:00", notify: true)
        let (updated, job) = try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(announcement: .some(announcement)), now: Date()) }
        #expect(updated.announcement == announcement)
        #expect(try fixture.store.withSession(.read) { try $0.events.event(id: event.id) }?.announcement == announcement)
        let created = try #require(job)
        #expect(created.kind == Job.announcementKind && created.total == 2, "the active passes only")
        let batch = try fixture.store.withSession(.write) { try $0.jobs.runRepushBatch(jobID: created.id, batchSize: 10, now: Date()) }
        #expect(batch.passesBumped == 2 && batch.job.state == .done && batch.job.done == 2)
        let after = try fixture.store.withSession(.read) { try $0.passes.passes(eventID: event.id, limit: 10) }
        #expect(after[0].revision > before[0].revision && after[2].revision > before[2].revision)
        #expect(after[1].revision == before[1].revision, "the cancelled pass does not show announcements: not bumped")
        // Taken off again: another announcement job; the same announcement again: no change, no job.
        let (cleared, again) = try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(announcement: .some(nil)), now: Date()) }
        #expect(cleared.announcement == nil && again?.kind == Job.announcementKind)
        #expect(try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(announcement: .some(nil)), now: Date()) }.job == nil)
        // A change of the look with it is an ordinary re-push of every pass.
        let both = try fixture.store.withSession(.write) {
            try $0.events.updateEvent(id: event.id, change: EventChange(venue: "Arena", announcement: .some(announcement)), now: Date())
        }
        #expect(both.job?.kind == Job.repushKind && both.job?.total == 3)
    }

    @Test(arguments: Backend.allCases)
    func announcementRows(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        try fixture.store.withSession(.write) { session in
            try session.announcements.insertAnnouncement(Announcement(id: "one", eventID: event.id, message: "First", notify: true, sentAt: now, jobID: "j1"))
            try session.announcements.insertAnnouncement(Announcement(id: "two", eventID: event.id, message: "Second", notify: false, sentAt: now.addingTimeInterval(60)))
            try session.announcements.insertAnnouncement(Announcement(id: "three", eventID: event.id, message: "Third", notify: true, sentAt: now.addingTimeInterval(120)))
        }
        #expect(try fixture.store.withSession(.read) { try $0.announcements.announcements(eventID: event.id) }.map(\.id) == ["three", "two", "one"])
        let times = try fixture.store.withSession(.read) { try $0.announcements.notifyingAnnouncementTimes(eventID: event.id, since: now.addingTimeInterval(1)) }
        #expect(times == [now.addingTimeInterval(120)], "notifying ones only, from the time given")
        let withdrawn = try fixture.store.withSession(.write) { try $0.announcements.markWithdrawn(announcementID: "one", jobID: "j2", now: now.addingTimeInterval(300)) }
        #expect(withdrawn.withdrawnAt == now.addingTimeInterval(300) && withdrawn.withdrawJobID == "j2" && withdrawn.jobID == "j1")
        #expect(try fixture.store.withSession(.read) { try $0.announcements.announcement(id: "one") } == withdrawn)
    }
}
