import Foundation
import Logging
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Deleting an event: confirmed by its name and only by an admin; the passes are voided and every
/// registered phone is pushed first, phones still fetch the voided pass, and the retention sweep
/// removes the rows only once they have (or after the grace).
@Suite("Admin API: deleting events", .offCooperativePool, .timeLimit(.minutes(5)))
struct EventDeletionTests {
    static func sweep(_ app: TestApp, now: Date = Date(), grace: Int = 7 * 86_400, batchSize: Int = 1_000) throws -> RetentionSweep.Removed? {
        var retention = Configuration.Retention()
        retention.deletedEvents = grace
        var sweep = RetentionSweep(
            store: app.store, retention: retention, logger: Logger(label: "retention", sink: MemorySink()), holder: "test", now: { now }
        )
        sweep.batchSize = batchSize
        return try sweep.run()
    }

    @Test("a deleted event's phones are pushed and fetch the voided pass; its rows go once they have", arguments: Backend.allCases)
    func deletePushesThenRemoves(backend: Backend) async throws {
        let (app, fake) = try AdminSupport.startWithFakeAPNs(backend)
        defer { app.stop(); fake.shutdown() }
        let event = try app.createEvent(name: "Gone Gala")
        let serial = try app.issueTicket(event: event, attendee: "Deleted Dora")
        let other = try app.issueTicket(event: try app.createEvent(name: "Stays"), attendee: "Kept Karl")
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        let tag = try #require(try phone.changedSerials().lastUpdated)
        #expect(try phone.fetch(serial).status == 200)

        // Refused: a viewer, a wrong name, no name at all. The event is still there.
        let viewer = try AdminRoleTests.token(app, role: .viewer)
        #expect(try app.request("DELETE", "/admin/v1/events/\(event)?confirm=Gone%20Gala", headers: [("Authorization", "Bearer \(viewer)")]).status == 403)
        let wrong = try app.admin("DELETE", "/admin/v1/events/\(event)?confirm=Gone")
        #expect(wrong.status == 409 && wrong.text.contains("confirmation_mismatch"), "\(wrong.text)")
        #expect(try app.admin("DELETE", "/admin/v1/events/\(event)").status == 409)
        #expect(try app.admin("GET", "/admin/v1/events/\(event)").status == 200)
        #expect(fake.count(token: phone.pushToken) == 0)

        let deleted = try app.admin("DELETE", "/admin/v1/events/\(event)?confirm=Gone%20Gala")
        try #require(deleted.status == 202, "\(deleted.text)")
        #expect(deleted.jsonObject?["kind"] as? String == "repush")
        #expect(try app.admin("GET", "/admin/v1/events/\(event)").status == 404)
        let listed = try #require(try app.admin("GET", "/admin/v1/events").jsonObject?["events"] as? [[String: Any]])
        #expect(!listed.contains { $0["id"] as? String == event })
        #expect(try app.admin("DELETE", "/admin/v1/events/\(event)?confirm=Gone%20Gala").status == 404)

        try await eventually("the phone is pushed", timeout: 60) { fake.count(token: phone.pushToken) == 1 }
        // Not yet fetched: the sweep keeps the rows (the same sweep removes them below).
        #expect(try app.admin("GET", "/admin/v1/tickets/\(other)").status == 200)
        #expect(try Self.sweep(app)?.deletedEvents == 0)
        #expect(try app.store.withSession(.read) { try $0.events.event(id: event) }?.deletingAt != nil)

        let changed = try phone.changedSerials(since: tag)
        #expect(changed.serials == [serial])
        let fetched = try phone.fetch(serial)
        #expect(fetched.status == 200)
        #expect(try PassArchive.passJSON(fetched.body)["voided"] as? Bool == true)

        // An admin read writes the reach marks waiting in this process (the list and the fetch).
        #expect(try app.admin("GET", "/admin/v1/tickets/\(other)").status == 200)
        let removed = try #require(try Self.sweep(app))
        #expect(removed.deletedEvents == 1 && removed.deletedPasses == 1 && removed.devices == 1, "\(removed)")
        #expect(try app.store.withSession(.read) { try $0.events.event(id: event) } == nil)
        let rows = try app.store.execute("SELECT count(*) AS n FROM passes WHERE event_id = \(event)")
        #expect(try rows.first?.int64("n") == 0)
        #expect([401, 404].contains(try phone.fetch(serial).status), "the pass is gone")
        #expect(try app.admin("GET", "/admin/v1/tickets/\(other)").status == 200, "another event's ticket stays")
        #expect(try app.admin("GET", "/admin/v1/tickets/\(serial)").status == 404)
    }

    @Test("after the grace, a deleted event goes even though a phone never fetched the voided pass, in batches of tickets", arguments: Backend.allCases)
    func graceRemoves(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent(name: "Lost Phones")
        let serials = try (1...5).map { try app.issueTicket(event: event, attendee: "Holder \($0)") }
        for serial in serials { #expect(try Phone(app: app).register(serial).status == 201) }
        // And an order of three tickets, whose row goes with the event.
        let order = try OrderSupport.createOrder(app, event: event, count: 3)
        let orderRows = try app.store.execute("SELECT count(*) AS n FROM orders WHERE event_id = \(event)")
        #expect(try orderRows.first?.int64("n") == 1)
        #expect(try app.admin("DELETE", "/admin/v1/events/\(event)?confirm=Lost%20Phones").status == 202)
        #expect(try app.admin("GET", "/admin/v1/orders/\(try #require(order["orderId"] as? String))").status == 404, "a deleted event's order is gone from the API")
        #expect(try Self.sweep(app, now: Date().addingTimeInterval(3_000), grace: 3_600)?.deletedEvents == 0)
        let removed = try #require(try Self.sweep(app, now: Date().addingTimeInterval(3_700), grace: 3_600, batchSize: 2))
        #expect(removed.deletedEvents == 1 && removed.deletedPasses == 8 && removed.devices == 5, "\(removed)")
        #expect(try app.store.withSession(.read) { try $0.events.event(id: event) } == nil)
        for table in ["event_tallies", "event_tally_changes", "event_devices", "jobs", "registrations", "orders"] {
            let rows = try app.store.execute("SELECT count(*) AS n FROM \(unsafeRaw: table) WHERE event_id = \(event)")
            #expect(try rows.first?.int64("n") == 0, "\(table)")
        }
    }
}
