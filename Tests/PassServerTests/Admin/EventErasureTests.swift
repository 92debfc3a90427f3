import Foundation
import Logging
import PassIdentifiers
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Erasing an event's attendee data: by hand (admin API) it leaves no name, email, seat or
/// external id anywhere in the database while every count stays; `ERASE_AFTER_DAYS` erases only
/// events ended longer ago than that.
@Suite("Admin API: erasing attendee data", .offCooperativePool, .timeLimit(.minutes(5)))
struct EventErasureTests {
    /// Three attendees with texts found nowhere else in a database.
    static let attendees = (1...3).map { index in
        (name: "Zebulonia Quaxworth\(index)", email: "zquax\(index)@erasure.example", seat: "QX-ROW-7\(index)", externalID: "EXT-QUAX-\(index)")
    }

    /// The reason the third ticket was cancelled with, naming its attendee.
    static let reason = "Refunded at Quaxworth3's request"

    /// An order's buyer and the organizer's id for it, found nowhere else either.
    static let buyer = (name: "Quirinius Buyerworth", email: "qbuyer@erasure.example", orderID: "ORD-QUAX-77", reply: "250 ok: <qbuyer@erasure.example>")

    static var secrets: [String] { attendees.flatMap { [$0.name, $0.email, $0.seat, $0.externalID] } + [reason, buyer.name, buyer.email, buyer.orderID] }

    static func counts(_ app: TestApp, _ event: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Int] {
        let body = try #require(try app.admin("GET", "/admin/v1/events/\(event)").jsonObject, sourceLocation: sourceLocation)
        let counts = try #require(body["counts"] as? [String: Any], sourceLocation: sourceLocation)
        return counts.compactMapValues { $0 as? Int }
    }

    @Test("erase: no attendee's name, email, seat or external id is left in any table; counts and check-in times stay", arguments: Backend.allCases)
    func eraseLeavesNothing(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent(name: "Erase Night")
        var serials: [String] = []
        for attendee in Self.attendees {
            let response = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: """
                {"attendeeName":"\(attendee.name)","attendeeEmail":"\(attendee.email)","seat":"\(attendee.seat)","externalId":"\(attendee.externalID)"}
                """)
            try #require(response.status == 201, "\(response.text)")
            serials.append(try #require(response.jsonObject?["serialNumber"] as? String))
        }
        // An order of two more tickets, with its buyer, the organizer's id for it and what the mail
        // server said about its email (a reply quoting the buyer's address).
        let order = try app.admin("POST", "/admin/v1/events/\(event)/orders", json: """
            {"externalId":"\(Self.buyer.orderID)","buyerEmail":"\(Self.buyer.email)","buyerName":"\(Self.buyer.name)",
             "tickets":[{"attendeeName":"Order Guest One"},{"attendeeName":"Order Guest Two"}]}
            """)
        try #require(order.status == 201, "\(order.text)")
        let orderID = try #require(order.jsonObject?["orderId"] as? String)
        _ = try app.store.execute("UPDATE orders SET email_state = 'sent', email_queued_at = 1, email_reply = \(Self.buyer.reply) WHERE id = \(orderID)")
        // One ticket checked in, one phone holding another, and what the mail server said about an
        // email (a reply quoting the address) and an email waiting with a temporary refusal.
        #expect(try app.admin("POST", "/admin/v1/tickets/\(serials[2])/cancel", json: #"{"reason":"\#(Self.reason)"}"#).status == 200)
        let scanner = try Scanner(app)
        #expect(try scanner.scan(try scanner.code(serials[0]), gate: "North").status == 200)
        let phone = Phone(app: app)
        #expect(try phone.register(serials[1]).status == 201)
        let passes = try app.store.withSession(.read) { session in
            try serials.map { try #require(try session.passes.pass(passTypeIdentifier: app.passType, serialNumber: SerialNumber($0)!)) }
        }
        try app.store.transaction { session in
            try session.execute("""
                INSERT INTO ticket_emails (pass_id, event_id, state, queued_at, sent_at, reply, sent_count, updated_at)
                VALUES (\(passes[0].id), \(event), 'sent', 1, 2, \("250 2.0.0 OK queued for <\(Self.attendees[0].email)>"), 1, 2)
                """)
            try session.execute("""
                INSERT INTO mail_outbox (pass_id, next_attempt_at, first_enqueued_at, last_status, last_reason, attempts)
                VALUES (\(passes[2].id), \(Int64(Date().addingTimeInterval(3_600).timeIntervalSince1970 * 1_000)), 1, 451, \("451 try later: <\(Self.attendees[2].email)>"), 1)
                """)
        }
        let checkedInAt = try #require(try app.admin("GET", "/admin/v1/tickets/\(serials[0])").jsonObject?["checkedInAt"] as? String)
        let before = try Self.counts(app, event)
        #expect(before["tickets"] == 5 && before["cancelled"] == 1 && before["checkedIn"] == 1 && before["registeredDevices"] == 1, "\(before)")

        // Before: the dump holds every attendee's texts (so the check below can see them).
        #expect(DatabaseDump.found(Self.secrets, in: try DatabaseDump.bytes(app, backend)) == Self.secrets)

        // A wrong confirmation, or a viewer, changes nothing.
        let wrong = try app.admin("POST", "/admin/v1/events/\(event)/erase?confirm=Erase%20Day")
        #expect(wrong.status == 409 && wrong.text.contains("confirmation_mismatch"), "\(wrong.text)")
        let viewer = try AdminRoleTests.token(app, role: .viewer)
        let refused = try app.request("POST", "/admin/v1/events/\(event)/erase?confirm=Erase%20Night", headers: [("Authorization", "Bearer \(viewer)")])
        #expect(refused.status == 403)
        #expect(DatabaseDump.found(Self.secrets, in: try DatabaseDump.bytes(app, backend)).count == Self.secrets.count)

        let erased = try app.admin("POST", "/admin/v1/events/\(event)/erase?confirm=Erase%20Night")
        try #require(erased.status == 200, "\(erased.text)")
        #expect((erased.jsonObject?["event"] as? [String: Any])?["erasedAt"] is String)
        let job = try #require((erased.jsonObject?["job"] as? [String: Any])?["id"] as? String)
        try await eventually("the re-push job done", timeout: 60) { (try? app.admin("GET", "/admin/v1/jobs/\(job)").jsonObject?["state"] as? String) == "done" }

        let left = DatabaseDump.found(Self.secrets, in: try DatabaseDump.bytes(app, backend))
        #expect(left.isEmpty, "still in the \(backend) database: \(left)")
        #expect(try Self.counts(app, event) == before)
        #expect(try app.admin("GET", "/admin/v1/tickets/\(serials[0])").jsonObject?["checkedInAt"] as? String == checkedInAt)
        // The order keeps its tickets and its buyer's page; its buyer and the organizer's id for it are gone.
        let erasedOrder = try #require(try app.admin("GET", "/admin/v1/orders/\(orderID)").jsonObject)
        #expect(erasedOrder["ticketCount"] as? Int == 2 && erasedOrder["buyerEmail"] == nil && erasedOrder["externalId"] == nil)
        #expect(try app.request("GET", try OrderSupport.target(erasedOrder["orderURL"] as? String), headers: [OrderBundleTests.browser]).status == 200)

        // The phone's pass keeps working without the name; the event takes no new ticket.
        let pass = try PassArchive.passJSON(try phone.fetch(serials[1]).body)
        #expect(AdminSupport.field("attendee", in: pass)?["value"] as? String == PassService.erasedName)
        let late = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Late Larry"}"#)
        #expect(late.status == 409 && late.text.contains("event_erased"), "\(late.text)")
    }

    @Test("ERASE_AFTER_DAYS: the sweep erases only events ended more than that many days ago, and nothing when unset", arguments: Backend.allCases)
    func eraseAfterDays(backend: Backend) throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "erase-after")
        let store = try Storage.openStore(url: try backend.freshDatabaseURL(in: directory), options: StoreOptions())
        defer { store.close() }
        try store.migrate()
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let day: TimeInterval = 86_400
        func event(_ name: String, startsDaysAgo start: Double, endsDaysAgo end: Double?) throws -> String {
            let event = try store.withSession(.write) {
                try $0.events.createEvent(NewEvent(
                    name: name, venue: "Hall", startsAt: now.addingTimeInterval(-start * day), endsAt: end.map { now.addingTimeInterval(-$0 * day) },
                    timeZone: "UTC", template: "event-ticket"
                ), now: now)
            }
            _ = try store.withSession(.write) {
                try $0.passes.insertPass(NewPass(
                    passTypeIdentifier: "pass.com.example.ticket", serialNumber: SerialNumber(event.id)!,
                    authenticationTokenHash: Array(("auth-" + name).utf8), downloadTokenHash: Array(("download-" + name).utf8),
                    eventID: event.id, attendeeName: "Holder of \(name)", attendeeEmail: "holder@\(name.lowercased()).example", seat: "S1"
                ), now: now)
            }
            return event.id
        }
        let endedLongAgo = try event("Old", startsDaysAgo: 11, endsDaysAgo: 10)
        let startedLongAgo = try event("Open", startsDaysAgo: 10, endsDaysAgo: nil)
        // Ended 4 days ago, although it started 40 days ago: the end counts.
        let endedRecently = try event("Long", startsDaysAgo: 40, endsDaysAgo: 4)
        let upcoming = try event("Next", startsDaysAgo: -3, endsDaysAgo: -4)
        func holders() throws -> [String: String] {
            try Dictionary(uniqueKeysWithValues: [endedLongAgo, startedLongAgo, endedRecently, upcoming].map { id in
                (id, try store.withSession(.read) { try $0.passes.passes(eventID: id, limit: 1) }.first?.attendeeName ?? "?")
            })
        }
        func sweep(_ days: Int?) throws -> RetentionSweep.Removed? {
            var retention = Configuration.Retention()
            retention.eraseAfterDays = days
            return try RetentionSweep(store: store, retention: retention, logger: Logger(label: "retention", sink: MemorySink()), holder: "test", now: { now }).run()
        }

        #expect(try sweep(nil)?.erasedEvents == 0)
        #expect(try holders().values.allSatisfy { $0.hasPrefix("Holder of") }, "unset erases nothing")
        #expect(try sweep(5)?.erasedEvents == 2)
        let after = try holders()
        #expect(after[endedLongAgo] == "" && after[startedLongAgo] == "")
        #expect(after[endedRecently] == "Holder of Long" && after[upcoming] == "Holder of Next")
        let erasedAt = try store.withSession(.read) { try $0.events.event(id: endedLongAgo) }?.erasedAt
        #expect(erasedAt.map { abs($0.timeIntervalSince(now)) < 1 } == true)
        #expect(try sweep(5)?.erasedEvents == 0, "an erased event is not erased again")
    }
}
