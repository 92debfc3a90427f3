import Foundation
import PassIdentifiers
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import PassServer

/// Webhooks are at least once across a crash, with real processes: webhook events of every type
/// are recorded by the storage operations that make the changes while no server runs (an import,
/// a rename, a cancellation, a check-in, a phone added and removed, an email given up on, Google's
/// save and delete, an event edited and one deleted); `pass-server serve` is SIGKILLed while the
/// receiver holds deliveries it has not answered yet; a second process on the same database sends
/// them again after their lease, with the same id and body, and everything else once.
@Suite("Webhooks: crash and restart", .offCooperativePool, .serialized, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct WebhookCrashTests {
    static let ticketCount = 1_200
    /// Deliveries answered at once before the receiver starts holding its answers.
    static let answeredBeforeHolding = 300

    @Test("SIGKILL with deliveries in flight, restart: every webhook event received, the ones in flight again with the same id and body", arguments: Backend.allCases)
    func killAndRestart(backend: Backend) async throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "passserver-webhook-crash")
        let certificates = try TestCertificates.make(in: directory)
        let receiver = try FakeWebhookReceiver(threads: 64)
        defer { receiver.shutdown() }

        let setup = try TestApp.start(backend, certificates: certificates)
        let event = try setup.createEvent()
        let other = try setup.createEvent(name: "Other Night")
        let vault = setup.application.passes.vault
        let passType = setup.passTypeIdentifier
        let databaseURL = setup.databaseURL
        await offPool { setup.stop() }
        let store = try Storage.openStore(url: databaseURL)
        defer { store.close() }
        let now = Date()
        let endpoint = try store.withSession(.write) {
            try $0.webhooks.createWebhookEndpoint(
                NewWebhookEndpoint(url: receiver.url("crash"), description: "", eventTypes: Set(WebhookEventType.allCases), secretNonce: "crash-nonce"), now: now
            )
        }
        let secret = try TokenVault(secret: ServerProcess.tokenSecret).webhookSecret(endpointID: endpoint.id, nonce: "crash-nonce")

        // Every type, recorded by the operations the server runs, while no server runs.
        var serials: [SerialNumber] = []
        for chunk in stride(from: 0, to: Self.ticketCount, by: 400) {
            let passes = try (chunk..<min(chunk + 400, Self.ticketCount)).map { index in
                var pass = try AdminSupport.newPass(event: event, vault: vault, passType: passType, attendee: "Guest \(index)")
                pass.externalID = "x\(index)"
                return pass
            }
            serials += try store.withSession(.write) { try $0.passes.importPasses(passes, eventID: event, now: now) }.map(\.pass.serialNumber)
        }
        let type = PassTypeIdentifier(trusted: passType)
        let first = serials[0]
        try store.withSession(.write) { session in
            _ = try session.passes.updatePass(passTypeIdentifier: type, serialNumber: first, change: PassChange(attendeeName: "Renamed"), now: now)
            _ = try session.passes.updatePass(passTypeIdentifier: type, serialNumber: serials[1], change: PassChange(status: .cancelled), now: now)
            _ = try session.checkIns.checkIn(Scan(passTypeIdentifier: type, serialNumber: serials[2], scannedAt: now, gate: "East"), now: now)
            _ = try session.registrations.upsertRegistration(
                deviceLibraryIdentifier: "crashphone", pushToken: PushToken.fixture("crash"), passTypeIdentifier: type, serialNumber: serials[3], now: now,
                keepingAtMost: 10
            )
            _ = try session.registrations.deleteRegistration(deviceLibraryIdentifier: "crashphone", passTypeIdentifier: type, serialNumber: serials[3], now: now)
            let failedEmail = try #require(try session.passes.pass(passTypeIdentifier: type, serialNumber: serials[4]))
            try session.mail.recordEmails([EmailResult(passID: failedEmail.id, kind: .failed, reply: "550 5.1.1 User unknown")], now: now)
            let saved = try #require(try session.passes.pass(passTypeIdentifier: type, serialNumber: serials[5]))
            _ = try session.google.recordGoogleWalletCallback(passID: saved.id, eventID: event, nonce: "n1", saved: true, now: now)
            _ = try session.google.recordGoogleWalletCallback(passID: saved.id, eventID: event, nonce: "n2", saved: false, now: now)
            _ = try session.events.updateEvent(id: event, change: EventChange(venue: "Crash Hall"), now: now)
            _ = try session.erasure.markEventDeleting(id: other, reason: "deleted", now: now)
        }
        let recorded = try store.execute("SELECT public_id, event_type FROM webhook_events").map { (try $0.string("public_id"), try $0.string("event_type")) }
        #expect(Set(recorded.map(\.1)) == Set(WebhookEventType.allCases.map(\.rawValue)), "every type was recorded")
        #expect(recorded.count == Self.ticketCount + 10)

        // The receiver answers the first deliveries at once, then holds its answers: at the kill
        // it has received deliveries the server has no answer to. The timeout is long enough for
        // a busy machine to fill the endpoint's lane while the first held ones wait.
        receiver.script("crash", Array(repeating: .status(200), count: Self.answeredBeforeHolding))
        receiver.always("crash", .delayed(seconds: 40, status: 200))
        let environment = ServerProcess.environment(certificates: certificates, databaseURL: databaseURL).merging([
            "LOG_LEVEL": "warning", "WEBHOOK_ALLOW_PRIVATE_TARGETS": "true", "WEBHOOK_TIMEOUT": "15s", "WEBHOOK_LEASE": "18s",
        ]) { _, override in override }
        let killed = try ServerProcess(["serve"], environment: environment, directory: directory)
        let pid = killed.process.processIdentifier
        // Killed once eight held deliveries arrived, or two seconds after the first one did: a held
        // answer also holds the receiver's worker thread, and with it any other connection that
        // worker serves, so fewer than eight may ever arrive.
        let kill = await ServerProcess.killAsSoonAs {
            let held = receiver.deliveries("crash").dropFirst(Self.answeredBeforeHolding)
            guard let first = held.first else { return nil }
            return held.count >= 8 || Date().timeIntervalSince(first.receivedAt) >= 2 ? pid : nil
        }
        #expect(kill == pid, "the first process was sending: \(killed.standardError.suffix(1_000))")
        killed.forceKill()
        let atKill = receiver.deliveries("crash")
        // Received after the answered ones: their answers were being held when the server died.
        let unanswered = Set(atKill.dropFirst(Self.answeredBeforeHolding).compactMap(\.webhookID))
        #expect(unanswered.count >= 1)
        let pendingAtKill = try store.withSession(.read) { try $0.webhooks.webhookCounts() }.pending
        #expect(pendingAtKill > 0, "the kill left deliveries to send")

        receiver.always("crash", .status(200))
        let second = try ServerProcess(["serve"], environment: environment, directory: directory)
        try await eventually("the second process delivered everything", timeout: 180) {
            let counts = try store.withSession(.read) { try $0.webhooks.webhookCounts() }
            return counts.pending == 0 && counts.failed == 0
        }
        let received = receiver.deliveries("crash")
        let byID = Dictionary(grouping: received, by: { $0.webhookID ?? "" })
        #expect(Set(byID.keys) == Set(recorded.map(\.0)), "every webhook event reached the receiver: \(Set(recorded.map(\.0)).subtracting(byID.keys).count) missing")
        for (id, copies) in byID where copies.count > 1 {
            #expect(Set(copies.map(\.body)).count == 1, "every copy of \(id) has the same body")
            #expect(copies.allSatisfy { $0.json?["id"] as? String == id })
        }
        // Those received and unanswered at the kill came again, with the same id, after the restart.
        for id in unanswered {
            #expect((byID[id]?.count ?? 0) >= 2, "\(id), unanswered at the kill, was sent again")
        }
        let duplicated = byID.values.filter { $0.count > 1 }.count
        #expect(duplicated <= 1_000, "only deliveries in flight at the kill came twice (\(duplicated))")
        #expect(received.allSatisfy { WebhookTest.verifies($0, secret: secret) }, "every copy is signed with the endpoint's secret")
        let types = Dictionary(grouping: byID.values.compactMap(\.first?.type), by: { $0 }).mapValues(\.count)
        #expect(Set(types.keys) == Set(WebhookEventType.allCases.map(\.rawValue)))
        print("\(backend): \(pendingAtKill) deliveries pending at the kill, \(unanswered.count) unanswered, \(duplicated) webhook events received twice, types \(types)")

        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: 30) == 0)
    }
}
