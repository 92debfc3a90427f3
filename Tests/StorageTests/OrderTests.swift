import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

@testable import Storage

/// Orders on both backends: made with their first tickets by an import (never twice for one
/// external id, found again by external id or by key), their one email queued on the first ticket
/// and recorded on the order and every ticket of it, event sends that reach each order once, the
/// order filter of the ticket list, erasure and the removal of a deleted event.
@Suite("Orders", .offCooperativePool, .timeLimit(.minutes(3)))
struct OrderTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func newPass(_ serial: SerialNumber, event: String, order: String?, externalID: String? = nil, name: String = "Guest") -> NewPass {
        NewPass(
            passTypeIdentifier: StoreFixture.passType, serialNumber: serial, authenticationTokenHash: Array("a-\(serial)".utf8),
            downloadTokenHash: Array("d-\(serial)".utf8), eventID: event, attendeeName: name, attendeeEmail: "\(serial.rawValue.lowercased())@example.com",
            externalID: externalID, orderID: order
        )
    }

    static func newOrder(_ id: String, externalID: String?, buyer: String? = "buyer@example.com") -> NewOrder {
        NewOrder(id: id, externalID: externalID, buyerEmail: buyer, buyerName: "Buyer", tokenHash: Array("t-\(id)".utf8))
    }

    /// Imports `count` tickets into the new order `id` (external id `externalID`).
    static func importOrder(
        _ fixture: StoreFixture, event: String, id: String, externalID: String?, count: Int, serialPrefix: String, now: Date
    ) throws -> OrderedImport {
        let passes = (0..<count).map { newPass(SerialNumber("\(serialPrefix)\($0)"), event: event, order: id, externalID: "\(serialPrefix)-\($0)") }
        return try fixture.store.withSession(.write) {
            try $0.passes.importPasses(passes, orders: [newOrder(id, externalID: externalID)], eventID: event, now: now)
        }
    }

    @Test("an import makes each order once: a re-upload, or more tickets named by external id or key, join the same order", arguments: Backend.allCases)
    func importIsIdempotent(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(now: now)
        let first = try Self.importOrder(fixture, event: event.id, id: "order-key-1", externalID: "ORD-1", count: 4, serialPrefix: "A", now: now)
        #expect(first.createdOrders == ["order-key-1"])
        let order = try #require(first.orders["order-key-1"])
        #expect(order.id == "order-key-1" && order.externalID == "ORD-1" && order.buyerEmail == "buyer@example.com" && order.email == nil)
        #expect(first.passes.allSatisfy { $0.created && $0.pass.orderID == "order-key-1" })

        // The same rows again under a new key: nothing is made, the tickets come back with their order.
        let again = try Self.importOrder(fixture, event: event.id, id: "order-key-2", externalID: "ORD-1", count: 4, serialPrefix: "A", now: now)
        #expect(again.createdOrders.isEmpty && again.passes.allSatisfy { !$0.created && $0.pass.orderID == "order-key-1" })
        // A new ticket named by the order's external id, and one by its key, join it.
        let more = try fixture.store.withSession(.write) { session in
            try session.passes.importPasses(
                [Self.newPass("B1", event: event.id, order: "x"), Self.newPass("B2", event: event.id, order: "y")],
                orders: [Self.newOrder("x", externalID: "ORD-1"), Self.newOrder("y", externalID: "order-key-1")], eventID: event.id, now: now
            )
        }
        #expect(more.createdOrders.isEmpty && more.passes.allSatisfy { $0.created && $0.pass.orderID == "order-key-1" })
        let rows = try fixture.store.execute("SELECT count(*) AS n FROM orders")
        #expect(try rows.first?.int64("n") == 1)
        #expect(try fixture.store.withSession(.read) { try $0.orders.passes(orderID: "order-key-1") }.map(\.serialNumber) == ["A0", "A1", "A2", "A3", "B1", "B2"])

        // Another event's order of the same external id is another order.
        let other = try fixture.makeEvent(now: now)
        let elsewhere = try Self.importOrder(fixture, event: other.id, id: "order-key-3", externalID: "ORD-1", count: 1, serialPrefix: "C", now: now)
        #expect(elsewhere.createdOrders == ["order-key-3"])
        let listed = try fixture.store.withSession(.read) { try $0.orders.orders(eventID: event.id, limit: 10) }
        #expect(listed.map(\.order.id) == ["order-key-1"] && listed.first?.tickets == 6 && listed.first?.active == 6)
    }

    @Test("createOrder: once per external id, with its tickets; a second call returns it and writes nothing", arguments: Backend.allCases)
    func createOrderOnce(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(now: now)
        let made = try fixture.store.withSession(.write) {
            try $0.orders.createOrder(Self.newOrder("k1", externalID: "SHOP-9"), passes: [Self.newPass("S1", event: event.id, order: "k1")], eventID: event.id, now: now)
        }
        #expect(made.created && made.order.id == "k1" && made.passes.count == 1)
        let again = try fixture.store.withSession(.write) {
            try $0.orders.createOrder(Self.newOrder("k2", externalID: "SHOP-9"), passes: [Self.newPass("S2", event: event.id, order: "k2")], eventID: event.id, now: now)
        }
        #expect(!again.created && again.order.id == "k1" && again.passes.map(\.pass.serialNumber) == ["S1"])
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "S2") } == nil)
        // Every ticket existing already: refused, nothing written.
        #expect(storageCode {
            _ = try fixture.store.withSession(.write) {
                try $0.orders.createOrder(
                    Self.newOrder("k3", externalID: nil), passes: [Self.newPass("S3", event: event.id, order: "k3", externalID: "S1-ext")], eventID: event.id,
                    now: now
                )
            }
        } == nil)
        #expect(storageCode {
            _ = try fixture.store.withSession(.write) {
                try $0.orders.createOrder(
                    Self.newOrder("k4", externalID: nil), passes: [Self.newPass("S4", event: event.id, order: "k4", externalID: "S1-ext")], eventID: event.id,
                    now: now
                )
            }
        } == .conflict)
        #expect(try fixture.store.withSession(.read) { try $0.orders.order(id: "k4") } == nil)
    }

    @Test("an order's email: one outbox row on its first ticket; recorded on the order and each of its tickets; single tickets keep their own", arguments: Backend.allCases)
    func orderEmail(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(now: now)
        let imported = try Self.importOrder(fixture, event: event.id, id: "mail-order", externalID: nil, count: 4, serialPrefix: "E", now: now)
        let tickets = imported.passes.map(\.pass)
        let single = try fixture.makePass(serial: "SOLO", eventID: event.id, now: now)
        // A ticket of an order never gets an email of its own.
        #expect(try fixture.store.withSession(.write) { try $0.mail.enqueueEmails(passIDs: tickets.map(\.id) + [single.id], now: now) } == [single.id])
        #expect(try fixture.store.withSession(.write) { try $0.mail.enqueueOrderEmails(orderIDs: ["mail-order"], now: now) } == tickets.map(\.id))
        #expect(try fixture.store.withSession(.write) { try $0.mail.enqueueOrderEmails(orderIDs: ["mail-order"], now: now) }.isEmpty, "queued already")
        #expect(try fixture.store.withSession(.read) { try $0.mail.mailOutboxCounts() }.pending == 2)

        let claimed = try MailOutboxTests.claim(fixture, now: now).sorted { $0.passID < $1.passID }
        #expect(claimed.count == 2)
        let orderRow = try #require(claimed.first { $0.orderID != nil })
        #expect(orderRow.passID == tickets[0].id && orderRow.order?.id == "mail-order" && orderRow.event?.id == event.id)
        #expect(orderRow.orderTickets.map(\.id) == tickets.map(\.id))
        #expect(claimed.first { $0.orderID == nil }?.ticket?.id == single.id)

        try fixture.store.transaction { session in
            try session.outbox.settleOutbox(OutboxSettlement(entries: claimed.map { .init(id: $0.id, generation: $0.generation, change: .completed) }), in: .mail, now: now)
            try session.mail.recordEmails(claimed.map { EmailResult(passID: $0.passID, orderID: $0.orderID, kind: .sent, reply: "250 ok") }, now: now)
        }
        let order = try #require(try fixture.store.withSession(.read) { try $0.orders.order(id: "mail-order") })
        #expect(order.email?.state == .sent && order.email?.sentCount == 1 && order.email?.reply == "250 ok" && order.email?.sentAt == now)
        let states = try fixture.store.withSession(.read) { try $0.mail.ticketEmails(passIDs: tickets.map(\.id) + [single.id]) }
        #expect(tickets.allSatisfy { states[$0.id]?.state == .sent && states[$0.id]?.sentCount == 1 }, "every ticket of the order reports the order's email")
        #expect(states[single.id]?.state == .sent)
        #expect(try fixture.store.withSession(.read) { try $0.mail.emailCounts(eventID: event.id) } == EmailCounts(sent: 5))

        // Sent: an event send skips it, a resend queues it again (one row, on the first ticket).
        let job = try fixture.store.withSession(.write) { try $0.jobs.createEmailJob(eventID: event.id, resend: false, now: now) }
        #expect(job.total == 0)
        let batch = try fixture.store.withSession(.write) { try $0.jobs.runEmailBatch(jobID: job.id, batchSize: 2, now: now) }
        #expect(batch.queued == 0)
        let resend = try fixture.store.withSession(.write) { try $0.jobs.createEmailJob(eventID: event.id, resend: true, now: now) }
        #expect(resend.total == 5)
        var queued = 0
        for _ in 0..<5 { queued += try fixture.store.withSession(.write) { try $0.jobs.runEmailBatch(jobID: resend.id, batchSize: 2, now: now) }.queued }
        #expect(queued == 5, "four tickets of the order, in the batch of its first ticket, and the single one")
        let rows = try fixture.store.execute("SELECT pass_id, order_id FROM mail_outbox ORDER BY pass_id")
        #expect(try rows.map { try $0.int64("pass_id") } == [tickets[0].id, single.id])
        #expect(try rows.first?.optionalString("order_id") == "mail-order")
        #expect(try fixture.store.withSession(.read) { try $0.orders.order(id: "mail-order") }?.email?.jobID == resend.id)
    }

    @Test("a cancelled first ticket keeps the order's row; an order with every ticket cancelled or no buyer is not emailed", arguments: Backend.allCases)
    func orderEmailEligibility(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(now: now)
        let tickets = try Self.importOrder(fixture, event: event.id, id: "o1", externalID: nil, count: 2, serialPrefix: "F", now: now).passes.map(\.pass)
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: tickets[0].serialNumber, change: PassChange(status: .cancelled), now: now)
        }
        #expect(try fixture.store.withSession(.write) { try $0.mail.enqueueOrderEmails(orderIDs: ["o1"], now: now) } == [tickets[1].id])
        let row = try fixture.store.execute("SELECT pass_id FROM mail_outbox")
        #expect(try row.first?.int64("pass_id") == tickets[0].id, "the row stays on the order's first ticket")
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: tickets[1].serialNumber, change: PassChange(status: .cancelled), now: now)
        }
        let claimed = try MailOutboxTests.claim(fixture, now: now)
        #expect(claimed.first?.orderTickets.allSatisfy { $0.status == .cancelled } == true)
        try fixture.store.transaction { session in
            try session.outbox.settleOutbox(OutboxSettlement(entries: claimed.map { .init(id: $0.id, generation: $0.generation, change: .completed) }), in: .mail, now: now)
            try session.mail.recordEmails(claimed.map { EmailResult(passID: $0.passID, orderID: $0.orderID, kind: .failed, reply: nil) }, now: now)
        }
        #expect(try fixture.store.withSession(.read) { try $0.orders.order(id: "o1") }?.email?.state == .failed)
        // Failed, so eligible again, but no ticket of it is active.
        #expect(try fixture.store.withSession(.write) { try $0.mail.enqueueOrderEmails(orderIDs: ["o1"], now: now) }.isEmpty)
        let buyerless = try fixture.store.withSession(.write) {
            try $0.passes.importPasses([Self.newPass("G1", event: event.id, order: "o2")], orders: [Self.newOrder("o2", externalID: nil, buyer: nil)], eventID: event.id, now: now)
        }
        #expect(buyerless.createdOrders == ["o2"])
        #expect(try fixture.store.withSession(.write) { try $0.mail.enqueueOrderEmails(orderIDs: ["o2"], now: now) }.isEmpty)
    }

    @Test("the ticket list filters by order; erasing clears the buyer and the order's external id; a deleted event's orders go with it", arguments: Backend.allCases)
    func filterEraseRemove(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(now: now)
        let a = try Self.importOrder(fixture, event: event.id, id: "oa", externalID: "A", count: 3, serialPrefix: "H", now: now)
        _ = try Self.importOrder(fixture, event: event.id, id: "ob", externalID: "B", count: 2, serialPrefix: "I", now: now)
        _ = try fixture.makePass(serial: "LONE", eventID: event.id, now: now)
        let listed = try fixture.store.withSession(.read) { try $0.passes.passes(eventID: event.id, matching: PassFilter(orderID: "oa"), limit: 50) }
        #expect(listed.map(\.id) == a.passes.map(\.pass.id))
        #expect(try fixture.store.withSession(.read) { try $0.passes.passes(eventID: event.id, matching: PassFilter(orderID: "nope"), limit: 50) }.isEmpty)

        _ = try fixture.store.withSession(.write) { try $0.mail.enqueueOrderEmails(orderIDs: ["oa"], now: now) }
        _ = try fixture.store.withSession(.write) { try $0.erasure.eraseAttendees(eventID: event.id, now: now) }
        let erased = try #require(try fixture.store.withSession(.read) { try $0.orders.order(id: "oa") })
        #expect(erased.buyerEmail == nil && erased.buyerName == nil && erased.externalID == nil)
        #expect(erased.email?.state == .failed, "an email still waiting is dropped and counted as failed")
        #expect(try fixture.store.withSession(.read) { try $0.mail.mailOutboxCounts() }.pending == 0)
        #expect(try fixture.store.withSession(.read) { try $0.orders.passes(orderID: "oa") }.count == 3, "the order keeps its tickets")

        _ = try fixture.store.withSession(.write) { try $0.erasure.markEventDeleting(id: event.id, reason: "gone", now: now) }
        var removal = DeletedEventRemoval(passes: 0, devices: 0, eventRemoved: false)
        while !removal.eventRemoved {
            removal = try fixture.store.withSession(.write) { try $0.erasure.removeDeletedEvent(id: event.id, limit: 2) }
        }
        let rows = try fixture.store.execute("SELECT count(*) AS n FROM orders WHERE event_id = \(event.id)")
        #expect(try rows.first?.int64("n") == 0)
        #expect(try fixture.store.withSession(.read) { try $0.events.event(id: event.id) } == nil)
    }
}
