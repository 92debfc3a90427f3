import Foundation
import PassIdentifiers
import PassServerTesting
import Testing

@testable import Storage

@Suite("Event lists, page counts and archived events", .offCooperativePool)
struct EventListTests {
    static func makeEvent(_ fixture: StoreFixture, name: String, venue: String = "Hall", startsAt: TimeInterval) throws -> Event {
        try fixture.store.withSession(.write) {
            try $0.events.createEvent(
                NewEvent(name: name, venue: venue, startsAt: Date(timeIntervalSince1970: startsAt), timeZone: "UTC", template: "event"), now: Date()
            )
        }
    }

    static func list(_ store: any Store, _ filter: EventFilter = EventFilter(), after: EventListPosition? = nil, limit: Int = 100) throws -> [Event] {
        try store.withSession(.read) { try $0.events.events(matching: filter, after: after, limit: limit) }
    }

    @Test(arguments: Backend.allCases)
    func newestFirstPagingFiltersAndSearch(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        // Three share a start time: the id decides among them.
        var events: [Event] = []
        for (index, start) in [1_800_000_000, 1_800_000_500, 1_800_000_500, 1_800_000_500, 1_700_000_000, 1_900_000_000].enumerated() {
            events.append(try Self.makeEvent(fixture, name: "Event \(index)", venue: index == 3 ? "Théâtre Royal" : "Hall", startsAt: TimeInterval(start)))
        }
        let expected = events.sorted { ($0.startsAt, $1.id) > ($1.startsAt, $0.id) }.map(\.id)
        #expect(try Self.list(fixture.store).map(\.id) == expected)

        // Paging two at a time, with an event inserted between pages, never repeats or skips one.
        var seen: [String] = []
        var position: EventListPosition?
        var pages = 0
        repeat {
            pages += 1
            try #require(pages <= expected.count + 1, "paging does not end: \(seen)")
            let page = try Self.list(fixture.store, after: position, limit: 2)
            seen += page.map(\.id)
            position = page.count == 2 ? page.last.map(EventListPosition.init(after:)) : nil
            if seen.count == 2 { _ = try Self.makeEvent(fixture, name: "Late", startsAt: 1_950_000_000) }
        } while position != nil
        #expect(seen == expected, "the event inserted before the current position is not on later pages")

        #expect(try Self.list(fixture.store, EventFilter(search: "THÉÂTRE")).map(\.name) == ["Event 3"])
        #expect(try Self.list(fixture.store, EventFilter(search: "event 1")).map(\.name) == ["Event 1"])
        let from = Date(timeIntervalSince1970: 1_800_000_000)
        let before = Date(timeIntervalSince1970: 1_800_000_500)
        #expect(try Self.list(fixture.store, EventFilter(startsFrom: from, startsBefore: before)).map(\.name) == ["Event 0"], "from inclusive, to exclusive")
        #expect(Set(try Self.list(fixture.store, EventFilter(startsFrom: before, startsBefore: before.addingTimeInterval(1))).map(\.name)) == ["Event 1", "Event 2", "Event 3"])
    }

    @Test(arguments: Backend.allCases)
    func totalsForAPageInOneQueryMatchSingleCounts(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let big = try Self.makeEvent(fixture, name: "Big", startsAt: 1_800_000_000)
        let small = try Self.makeEvent(fixture, name: "Small", startsAt: 1_800_000_100)
        let empty = try Self.makeEvent(fixture, name: "Empty", startsAt: 1_800_000_200)
        for index in 0..<6 { try fixture.makePass(serial: "B\(index)", eventID: big.id) }
        for index in 0..<2 { try fixture.makePass(serial: "S\(index)", eventID: small.id) }
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "B0", change: PassChange(status: .cancelled), now: now)
        }
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "B1", change: PassChange(status: .cancelled), now: now)
        }
        _ = try fixture.register(device: "d1", token: .fixture("t1"), serial: "B2")
        _ = try fixture.register(device: "d1", token: .fixture("t1"), serial: "S0")
        _ = try fixture.register(device: "d2", token: .fixture("t2"), serial: "B3")
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "B2", change: PassChange(touch: true), now: now)
        }
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "B3", change: PassChange(touch: true), now: now)
        }

        func totals() throws -> [String: EventCounts] {
            try fixture.store.withSession(.read) { try $0.reach.eventTotals(eventIDs: [big.id, small.id, empty.id]) }.mapValues(EventCounts.init)
        }
        let counts = try totals()
        try fixture.store.withSession(.write) { _ = try $0.reach.foldTallyChanges() }
        #expect(try totals() == counts, "the folded tallies count the same as the changes not folded yet")
        #expect(counts[big.id] == EventCounts(tickets: 6, cancelled: 2, registeredDevices: 2, pendingPushes: 2, failedPushes: 0))
        // t1's push was enqueued by the change of B2, so it belongs to the big event only.
        #expect(counts[small.id] == EventCounts(tickets: 2, cancelled: 0, registeredDevices: 1, pendingPushes: 0, failedPushes: 0))
        #expect(counts[empty.id] == nil)
        for event in [big, small] { #expect(try fixture.store.withSession(.read, { try $0.events.eventCounts(id: event.id) }) == counts[event.id]) }
    }

    @Test(arguments: Backend.allCases)
    func archivedEventsChangePassesWithoutPushes(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let event = try Self.makeEvent(fixture, name: "Gone", startsAt: 1_800_000_000)
        try fixture.makePass(serial: "A1", eventID: event.id)
        _ = try fixture.register(device: "d1", token: .fixture("t1"), serial: "A1")
        func enqueued() throws -> Int64 {
            try fixture.store.execute("SELECT coalesce(sum(generation), 0) AS n FROM push_outbox").first?.int64("n") ?? -1
        }
        // Not archived: a change enqueues (this proves the check below could fail).
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "A1", change: PassChange(attendeeName: "B"), now: now)
        }
        #expect(try enqueued() == 1)

        let archived = try fixture.store.withSession(.write) { try $0.events.setArchived(eventID: event.id, archived: true, now: now) }
        let at = try #require(archived.archivedAt)
        let again = try fixture.store.withSession(.write) { try $0.events.setArchived(eventID: event.id, archived: true, now: now.addingTimeInterval(60)) }
        #expect(again.archivedAt == at, "archiving twice keeps the first time")
        #expect(again.revision == event.revision, "archiving takes no revision")
        #expect(try Self.list(fixture.store, EventFilter(archived: true)).map(\.id) == [event.id])
        #expect(try Self.list(fixture.store, EventFilter(archived: false)).isEmpty)

        let renamed = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "A1", change: PassChange(attendeeName: "C"), now: now)
        }
        guard case .updated(let pass, let pushes) = renamed else {
            Issue.record("the change is stored")
            return
        }
        #expect(pushes == 0)
        #expect(pass.attendeeName == "C")
        let job = try #require(try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(venue: "Elsewhere"), now: now) }.job)
        let batch = try fixture.store.withSession(.write) { try $0.jobs.runRepushBatch(jobID: job.id, batchSize: 10, now: now) }
        #expect(batch.passesBumped == 1, "the pass still moves to the new revision")
        #expect(batch.pushTokensEnqueued == 0)
        #expect(try enqueued() == 1, "nothing was enqueued while archived")

        let restored = try fixture.store.withSession(.write) { try $0.events.setArchived(eventID: event.id, archived: false, now: now) }
        #expect(restored.archivedAt == nil)
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "A1", change: PassChange(attendeeName: "D"), now: now)
        }
        #expect(try enqueued() == 2)
        #expect(storageCode { _ = try fixture.store.withSession(.write) { try $0.events.setArchived(eventID: "missing", archived: true, now: now) } } == .notFound)
    }
}
