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

/// Google Wallet updates are at least once across a crash, with real processes: `pass-server
/// serve` is SIGKILLed while it inserts an event's objects; tickets change while it is down; a
/// second process on the same database brings every object to its right state, and nothing is
/// inserted twice (an insert whose answer the first process never recorded meets Google's 409
/// and becomes a patch).
@Suite("Google Wallet: crash and restart", .offCooperativePool, .serialized, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct GoogleWalletCrashTests {
    static let ticketCount = 1_500

    @Test("SIGKILL mid-batch, restart: every object at Google in its state, none inserted twice", arguments: Backend.allCases)
    func killAndRestart(backend: Backend) async throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "passserver-google-crash")
        let certificates = try TestCertificates.make(in: directory)
        let fake = try FakeGoogleWallet()
        defer { fake.shutdown() }
        let account = try fake.makeServiceAccount(in: directory)

        // Set up through a short-lived in-process app (which migrates), then enqueue with Google
        // Wallet switched on while no dispatcher runs, as an import would.
        let setup = try TestApp.start(backend, certificates: certificates)
        let event = try setup.createEvent()
        let vault = setup.application.passes.vault
        let passType = setup.passTypeIdentifier
        let databaseURL = setup.databaseURL
        await offPool { setup.stop() }
        let store = try Storage.openStore(url: databaseURL)
        defer { store.close() }
        try store.withSession(.write) { try $0.google.setGoogleWallet(enabled: true) }
        var serials: [String] = []
        for chunk in stride(from: 0, to: Self.ticketCount, by: 500) {
            let passes = try (chunk..<min(chunk + 500, Self.ticketCount)).map { index in
                try AdminSupport.newPass(event: event, vault: vault, passType: passType, attendee: "Guest \(index)")
            }
            let imported = try store.withSession(.write) { try $0.passes.importPasses(passes.enumerated().map { offset, pass in
                var pass = pass
                pass.externalID = "x\(chunk + offset)"
                return pass
            }, eventID: event, now: Date()) }
            serials += imported.map { $0.pass.serialNumber.rawValue }
        }
        #expect(serials.count == Self.ticketCount)
        #expect(try store.withSession(.read) { try $0.google.googleOutboxCounts() }.pending == Self.ticketCount + 1)

        let environment = ServerProcess.environment(certificates: certificates, databaseURL: databaseURL)
            .merging(GoogleFixture.environment(fake: fake, account: account)) { _, override in override }
            .merging(["LOG_LEVEL": "warning"]) { _, override in override }
        let first = try ServerProcess(["serve"], environment: environment, directory: directory)
        let inserted: @Sendable () -> Int = { fake.requests.filter { $0.method == "POST" && $0.kind == .eventTicketObject && $0.status == 200 }.count }
        let pid = first.process.processIdentifier
        let killed = await ServerProcess.killAsSoonAs { inserted() >= 300 ? pid : nil }
        #expect(killed == pid, "the first process was inserting objects")
        first.forceKill()
        let pendingAtKill = try store.withSession(.read) { try $0.google.googleOutboxCounts() }.pending
        #expect(pendingAtKill > 0, "the kill hit the import's objects on their way")

        // Changes made while no server runs: cancel some, rename one.
        let cancelled = Array(serials.prefix(5)) + Array(serials.suffix(5))
        for serial in cancelled {
            _ = try store.withSession(.write) {
                try $0.passes.updatePass(passTypeIdentifier: PassTypeIdentifier(trusted: passType), serialNumber: SerialNumber(trusted: serial), change: PassChange(status: .cancelled), now: Date())
            }
        }
        let second = try ServerProcess(["serve"], environment: environment, directory: directory)
        try await eventually("the second process brought Google up to date", timeout: 120) {
            try store.withSession(.read) { try $0.google.googleOutboxCounts() } == (pending: 0, failed: 0)
        }
        var wrong: [String] = []
        for serial in serials {
            let state = fake.storedObjectJSON(GoogleFixture.objectID(issuer: fake.issuerID, serial: serial))?["state"] as? String
            if state != (cancelled.contains(serial) ? "INACTIVE" : "ACTIVE") { wrong.append("\(serial): \(state ?? "missing")") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) objects not in their state: \(wrong.prefix(5))")
        let successfulInserts = Dictionary(grouping: fake.requests.filter { $0.method == "POST" && $0.kind == .eventTicketObject && $0.status == 200 }) {
            GoogleFixture.bodyID($0) ?? ""
        }
        #expect(successfulInserts.count == Self.ticketCount && successfulInserts.values.allSatisfy { $0.count == 1 }, "each object inserted once")
        let conflicts = fake.requests.filter { $0.method == "POST" && $0.kind == .eventTicketObject && $0.status == 409 }.count
        print("\(backend): \(Self.ticketCount + 1 - pendingAtKill) of \(Self.ticketCount + 1) rows recorded before the kill, \(conflicts) inserts met 409 after the restart")

        second.signal(SIGTERM)
        let status = await second.waitForExit(timeout: 30)
        #expect(status == 0)
    }
}
