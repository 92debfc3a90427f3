import Foundation
import PassIdentifiers
import PassServerTesting
import Testing

@testable import Storage

/// The webhook outbox on both backends: with no endpoint subscribed, changes record nothing; with
/// one, each change records its webhook event once, with the ticket and event as they were, and a
/// delivery per subscribed enabled endpoint; `pass.added` and `pass.removed` follow the first and
/// the last device; delivered rows stay in the log; disabling holds, enabling releases; failing
/// endpoints are reported; redelivery sends the same event; retention removes old rows.
@Suite("Webhook outbox", .offCooperativePool, .timeLimit(.minutes(3)))
struct WebhookOutboxTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func endpoint(_ fixture: StoreFixture, _ types: Set<WebhookEventType> = Set(WebhookEventType.allCases), url: String = "https://hooks.example.org/a") throws -> WebhookEndpoint {
        try fixture.store.withSession(.write) {
            try $0.webhooks.createWebhookEndpoint(NewWebhookEndpoint(url: url, description: "", eventTypes: types, secretNonce: "nonce"), now: Date())
        }
    }

    /// Every recorded webhook event's type, in order.
    static func recorded(_ fixture: StoreFixture) throws -> [String] {
        try fixture.store.execute("SELECT event_type FROM webhook_events ORDER BY id").map { try $0.string("event_type") }
    }

    static func claim(_ fixture: StoreFixture, _ endpoints: [WebhookEndpoint], now: Date) throws -> [WebhookDeliveryRow] {
        try fixture.store.withSession(.write) { try $0.webhooks.claimWebhooks(budgets: endpoints.map { ($0.id, 1_000) }, now: now, lease: .seconds(60)) }
    }

    /// Settles `rows` as the channel does: each `answer` (2xx: completed; otherwise retried in 10 s).
    static func settle(_ fixture: StoreFixture, _ rows: [WebhookDeliveryRow], status: Int, now: Date, failingBefore: Date = .distantPast) throws -> [FailingWebhookEndpoint] {
        let ok = (200...299).contains(status)
        return try fixture.store.transaction { session in
            try session.outbox.settleOutbox(OutboxSettlement(entries: rows.map {
                .init(id: $0.id, generation: $0.generation, change: ok ? .completed : .retry(nextAttempt: now.addingTimeInterval(10), status: status, reason: "answered \(status)"))
            }), in: .webhooks, now: now)
            return try session.webhooks.recordWebhookAttempts(rows.map {
                WebhookAttempt(deliveryID: $0.id, endpointID: $0.endpointID, status: status, latencyMilliseconds: 12, outcome: ok ? .succeeded : .failed(reason: "answered \(status)"))
            }, failingBefore: failingBefore, now: now)
        }
    }

    @Test("no subscriber: nothing recorded; subscribed: each change once, with the ticket and event as they were", arguments: Backend.allCases)
    func recordsWhatIsWanted(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(now: now)
        try fixture.makePass(serial: "W0", eventID: event.id, now: now)
        _ = try fixture.store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "W0", change: PassChange(attendeeName: "Bo"), now: now) }
        _ = try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(venue: "Arena"), now: now) }
        #expect(try Self.recorded(fixture).isEmpty)

        let endpoint = try Self.endpoint(fixture)
        let pass = try fixture.makePass(serial: "W1", eventID: event.id, name: "Ada", now: now)
        _ = try fixture.store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "W1", change: PassChange(attendeeName: "Ada L."), now: now) }
        // A re-push's new revision changes nothing a webhook shows.
        _ = try fixture.store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "W1", change: PassChange(touch: true), now: now) }
        _ = try fixture.store.withSession(.write) {
            try $0.checkIns.checkIn(Scan(passTypeIdentifier: StoreFixture.passType, serialNumber: "W1", scannedAt: now, gate: "North", scanner: "door-1"), now: now)
        }
        _ = try fixture.store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: "W1", change: PassChange(status: .cancelled), now: now) }
        _ = try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(name: "Concert II"), now: now) }
        #expect(try Self.recorded(fixture) == ["ticket.issued", "ticket.updated", "ticket.checked_in", "ticket.cancelled", "event.updated"])

        let rows = try Self.claim(fixture, [endpoint], now: now)
        #expect(rows.count == 5)
        #expect(Set(rows.compactMap(\.event?.publicID)).count == 5)
        #expect(rows.allSatisfy { $0.event?.publicID.hasPrefix("evt_") == true && $0.event?.publicID.count == 36 })
        let issued = try #require(rows.first { $0.event?.type == "ticket.issued" }?.event)
        #expect(issued.ticket?.attendeeName == "Ada" && issued.ticket?.id == pass.id && issued.ticket?.serialNumber == "W1")
        #expect(issued.event?.name == "Concert" && issued.event?.venue == "Arena" && issued.event?.timeZone == "Europe/Paris")
        let checkedIn = try #require(rows.first { $0.event?.type == "ticket.checked_in" }?.event)
        #expect(checkedIn.ticket?.attendeeName == "Ada L." && checkedIn.ticket?.checkedInAt != nil)
        #expect(checkedIn.detail?.gate == "North" && checkedIn.detail?.scanner == "door-1" && checkedIn.detail?.checkedInDate == Date(storageMillis: now.storageMillis))
        let cancelled = try #require(rows.first { $0.event?.type == "ticket.cancelled" }?.event)
        #expect(cancelled.ticket?.status == .cancelled)
        let edited = try #require(rows.first { $0.event?.type == "event.updated" }?.event)
        #expect(edited.ticket == nil && edited.event?.name == "Concert II")
        #expect(rows.allSatisfy { $0.endpoint?.id == endpoint.id })
    }

    @Test("one delivery per enabled subscribed endpoint; an import fans out in its statement", arguments: Backend.allCases)
    func fanOut(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(now: now)
        let all = try Self.endpoint(fixture)
        let cancels = try Self.endpoint(fixture, [.ticketCancelled])
        let disabled = try Self.endpoint(fixture)
        _ = try fixture.store.withSession(.write) { try $0.webhooks.setWebhookEndpoint(id: disabled.id, enabled: false, reason: "test", now: now) }
        _ = try fixture.store.withSession(.write) { session in
            try session.passes.importPasses((0..<40).map { index in
                NewPass(
                    passTypeIdentifier: StoreFixture.passType, serialNumber: "I\(index)", authenticationTokenHash: [UInt8(index)],
                    downloadTokenHash: [UInt8(index), 1], eventID: event.id, attendeeName: "Guest \(index)", externalID: "x\(index)"
                )
            }, eventID: event.id, now: now)
        }
        let rows = try Self.claim(fixture, [all, cancels, disabled], now: now)
        #expect(rows.count == 40 && rows.allSatisfy { $0.endpointID == all.id })
        #expect(Set(rows.compactMap { $0.event?.ticket?.attendeeName }) == Set((0..<40).map { "Guest \($0)" }))
    }

    @Test("pass.added on a ticket's first device only, pass.removed when its last device goes", arguments: Backend.allCases)
    func firstAndLastDevice(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let endpoint = try Self.endpoint(fixture, [.passAdded, .passRemoved])
        try fixture.makePass(serial: "D1", now: now)
        #expect(try fixture.register(device: "phone-a", token: .fixture("aa"), serial: "D1", now: now) == .created)
        #expect(try fixture.register(device: "phone-a", token: .fixture("aa"), serial: "D1", now: now) == .updated)
        #expect(try fixture.register(device: "phone-b", token: .fixture("bb"), serial: "D1", now: now) == .created)
        #expect(try Self.recorded(fixture) == ["pass.added"])
        #expect(try fixture.store.withSession(.write) { try $0.registrations.deleteRegistration(deviceLibraryIdentifier: "phone-a", passTypeIdentifier: StoreFixture.passType, serialNumber: "D1", now: now) })
        #expect(try Self.recorded(fixture) == ["pass.added"])
        // The last device's push token is dead: APNs's answer prunes it.
        #expect(try fixture.store.withSession(.write) { try $0.registrations.pruneRegistrations(pushToken: .fixture("bb"), passTypeIdentifier: StoreFixture.passType, unlessUpdatedAfter: nil) } == 1)
        #expect(try Self.recorded(fixture) == ["pass.added", "pass.removed"])
        #expect(try fixture.register(device: "phone-c", token: .fixture("cc"), serial: "D1", now: now) == .created)
        #expect(try fixture.store.withSession(.write) { try $0.registrations.deleteRegistration(deviceLibraryIdentifier: "phone-c", passTypeIdentifier: StoreFixture.passType, serialNumber: "D1", now: now) })
        #expect(try Self.recorded(fixture) == ["pass.added", "pass.removed", "pass.added", "pass.removed"])
        let rows = try Self.claim(fixture, [endpoint], now: now)
        #expect(rows.count == 4 && rows.allSatisfy { $0.event?.ticket?.serialNumber == "D1" })
    }

    @Test("PostgreSQL: webhooks wanted or not, issuing, registering and unregistering take the same round trips")
    func noRoundTripMore() throws {
        let fixture = try StoreFixture(.postgres)
        try fixture.makePass(serial: "P0", now: now)
        func trips(_ serial: SerialNumber, device: DeviceLibraryIdentifier) throws -> [Int] {
            try fixture.store.withSession(.write) { session in
                func measured(_ body: () throws -> Void) throws -> Int {
                    guard let connection = session.connection as? PGConnection else { throw StorageError(.backend, "not PostgreSQL") }
                    let before = connection.roundTrips
                    try body()
                    return connection.roundTrips - before
                }
                return [
                    try measured { _ = try session.passes.insertPass(NewPass(
                        passTypeIdentifier: StoreFixture.passType, serialNumber: serial, authenticationTokenHash: Array(serial.rawValue.utf8),
                        downloadTokenHash: Array(("d" + serial.rawValue).utf8), attendeeName: "Ada"
                    ), now: now) },
                    try measured { _ = try session.registrations.upsertRegistration(
                        deviceLibraryIdentifier: device, pushToken: .fixture(device.rawValue), passTypeIdentifier: StoreFixture.passType, serialNumber: serial,
                        now: now, keepingAtMost: 10
                    ) },
                    try measured { _ = try session.registrations.deleteRegistration(deviceLibraryIdentifier: device, passTypeIdentifier: StoreFixture.passType, serialNumber: serial, now: now) },
                ]
            }
        }
        // The first round prepares the statements.
        _ = try trips("P1", device: "warm")
        let without = try trips("P2", device: "d2")
        _ = try Self.endpoint(fixture, Set(WebhookEventType.allCases))
        _ = try trips("P3", device: "warm3")
        let with = try trips("P4", device: "d4")
        #expect(without == with, "round trips without a subscriber \(without), with one \(with)")
        #expect(try Self.recorded(fixture).filter { $0 != "ticket.issued" } == ["pass.added", "pass.removed", "pass.added", "pass.removed"])
    }

    @Test("delivered rows stay in the log with their status; failures mark the endpoint failing and are reported past the limit", arguments: Backend.allCases)
    func settlingAndHealth(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let endpoint = try Self.endpoint(fixture, [.ticketIssued])
        try fixture.makePass(serial: "S1", now: now)
        try fixture.makePass(serial: "S2", now: now)
        let first = try Self.claim(fixture, [endpoint], now: now)
        #expect(first.count == 2)
        #expect(try Self.settle(fixture, first, status: 500, now: now).isEmpty)
        var shown = try #require(try fixture.store.withSession(.read) { try $0.webhooks.webhookEndpoint(id: endpoint.id) })
        #expect(shown.failingSince == Date(storageMillis: now.storageMillis) && shown.lastFailure == "answered 500")
        let later = now.addingTimeInterval(3 * 86_400 + 60)
        let again = try Self.claim(fixture, [endpoint], now: later)
        #expect(again.count == 2 && again.allSatisfy { $0.attempts == 1 })
        let failing = try Self.settle(fixture, Array(again.prefix(1)), status: 503, now: later, failingBefore: later.addingTimeInterval(-3 * 86_400))
        #expect(failing.map(\.id) == [endpoint.id] && failing.first?.failingSince == Date(storageMillis: now.storageMillis))
        #expect(try Self.settle(fixture, Array(again.suffix(1)), status: 204, now: later, failingBefore: later.addingTimeInterval(-3 * 86_400)).isEmpty)
        shown = try #require(try fixture.store.withSession(.read) { try $0.webhooks.webhookEndpoint(id: endpoint.id) })
        #expect(shown.failingSince == nil && shown.lastSuccessAt == Date(storageMillis: later.storageMillis) && shown.lastFailure == nil)
        let log = try fixture.store.withSession(.read) { try $0.webhooks.webhookDeliveries(endpointID: endpoint.id, limit: 10) }
        #expect(log.map(\.state) == [.delivered, .pending] || log.map(\.state) == [.pending, .delivered])
        let delivered = try #require(log.first { $0.state == .delivered })
        #expect(delivered.lastStatus == 204 && delivered.attempts == 2 && delivered.latencyMilliseconds == 12 && delivered.lastReason == nil)
        let pending = try #require(log.first { $0.state == .pending })
        #expect(pending.lastStatus == 503 && pending.lastReason == "answered 503" && pending.attempts == 2)
        #expect(try fixture.store.withSession(.read) { try $0.webhooks.webhookCounts() } == WebhookCounts(pending: 1, failed: 0, held: 0, enabledEndpoints: 1, disabledEndpoints: 0))
    }

    @Test("disabling holds the waiting deliveries and records nothing more; enabling sends them", arguments: Backend.allCases)
    func holdAndRelease(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let endpoint = try Self.endpoint(fixture, [.ticketIssued])
        try fixture.makePass(serial: "H1", now: now)
        let disabled = try #require(try fixture.store.withSession(.write) { try $0.webhooks.setWebhookEndpoint(id: endpoint.id, enabled: false, reason: "Disabled by an admin.", now: now) })
        #expect(!disabled.enabled && disabled.disabledReason == "Disabled by an admin." && disabled.disabledAt != nil)
        try fixture.makePass(serial: "H2", now: now)
        #expect(try Self.recorded(fixture) == ["ticket.issued"])
        #expect(try Self.claim(fixture, [endpoint], now: now).isEmpty)
        #expect(try fixture.store.withSession(.read) { try $0.webhooks.webhookCounts() }.held == 1)
        let enabled = try #require(try fixture.store.withSession(.write) { try $0.webhooks.setWebhookEndpoint(id: endpoint.id, enabled: true, reason: nil, now: now) })
        #expect(enabled.enabled && enabled.disabledReason == nil)
        #expect(try Self.claim(fixture, [endpoint], now: now).count == 1)
        try fixture.makePass(serial: "H3", now: now)
        #expect(try Self.recorded(fixture) == ["ticket.issued", "ticket.issued"])
    }

    @Test("a row claimed before its endpoint was disabled is held when its retry is recorded", arguments: Backend.allCases)
    func heldAfterClaim(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let endpoint = try Self.endpoint(fixture, [.ticketIssued])
        try fixture.makePass(serial: "C1", now: now)
        let rows = try Self.claim(fixture, [endpoint], now: now)
        _ = try fixture.store.withSession(.write) { try $0.webhooks.setWebhookEndpoint(id: endpoint.id, enabled: false, reason: "x", now: now) }
        _ = try Self.settle(fixture, rows, status: 500, now: now)
        #expect(try fixture.store.withSession(.read) { try $0.webhooks.webhookDeliveries(endpointID: endpoint.id, limit: 5) }.map(\.state) == [.held])
    }

    @Test("redelivery queues the same webhook event again; retention removes old settled rows", arguments: Backend.allCases)
    func redeliveryAndRetention(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let endpoint = try Self.endpoint(fixture, [.ticketIssued])
        try fixture.makePass(serial: "R1", now: now)
        let rows = try Self.claim(fixture, [endpoint], now: now)
        _ = try Self.settle(fixture, rows, status: 200, now: now)
        let original = try #require(try fixture.store.withSession(.read) { try $0.webhooks.webhookDeliveries(endpointID: endpoint.id, limit: 5) }.first)
        let again = try #require(try fixture.store.withSession(.write) { try $0.webhooks.redeliverWebhook(deliveryID: original.id, endpointID: endpoint.id, now: now) })
        #expect(again.id != original.id && again.publicID == original.publicID && again.state == .pending)
        #expect(try fixture.store.withSession(.write) { try $0.webhooks.redeliverWebhook(deliveryID: original.id, endpointID: "other", now: now) } == nil)
        let resent = try Self.claim(fixture, [endpoint], now: now)
        #expect(resent.map(\.id) == [again.id] && resent.first?.event?.publicID == original.publicID)
        _ = try Self.settle(fixture, resent, status: 200, now: now)

        let cutoff = now.addingTimeInterval(1)
        #expect(try fixture.store.withSession(.write) { try $0.webhooks.deleteSettledWebhookDeliveries(before: cutoff, limit: 100) } == 2)
        #expect(try fixture.store.withSession(.write) { try $0.webhooks.deleteUnreferencedWebhookEvents(before: cutoff, limit: 100) } == 1)
        #expect(try Self.recorded(fixture).isEmpty)
    }

    @Test("erasing an event's attendees deletes its tickets' webhook events and their deliveries", arguments: Backend.allCases)
    func erasure(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent(now: now)
        _ = try Self.endpoint(fixture, [.ticketIssued, .eventUpdated])
        try fixture.makePass(serial: "E1", eventID: event.id, name: "Secret Name", now: now)
        _ = try fixture.store.withSession(.write) { try $0.events.updateEvent(id: event.id, change: EventChange(venue: "Arena"), now: now) }
        _ = try fixture.store.withSession(.write) { try $0.erasure.eraseAttendees(eventID: event.id, now: now) }
        #expect(try Self.recorded(fixture) == ["event.updated"])
        #expect(try fixture.store.execute("SELECT id FROM webhook_deliveries").count == 1)
    }
}
