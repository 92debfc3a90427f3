import FakeAPNs
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import PassServer

/// At-least-once across a crash, with real processes: `pass-server serve` is SIGKILLed while a
/// batch is in flight; a second process on the same database delivers everything, re-sending at
/// most the pushes that were in flight.
@Suite("Push dispatcher: crash and restart", .offCooperativePool, .serialized, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct PushCrashTests {
    static let pushCount = 300

    /// The environment of a `pass-server serve` child sending to `fake`, with a short lease so the
    /// second process reclaims the dead one's rows quickly. Not shorter: on a loaded machine the
    /// first process's slow (3 s) answers must not time out, and its rows must still be claimed (in
    /// flight) when they reach the fake, or their re-sends would not count as in flight at the kill.
    static func environment(_ certificates: TestCertificates, databaseURL: String, fake: FakeAPNs) -> [String: String] {
        ServerProcess.environment(certificates: certificates, databaseURL: databaseURL).merging([
            "APNS_MODE": "live", "APNS_URL": fake.url, "APNS_CA_FILE": certificates.rootCertificate,
            "APNS_REQUEST_TIMEOUT": "10", "PUSH_LEASE": "25", "PUSH_CONCURRENCY": "200", "LOG_LEVEL": "warning",
        ]) { _, override in override }
    }

    @Test("SIGKILL mid-batch, restart: every token pushed, duplicates only among those in flight", arguments: Backend.allCases)
    func killAndRestart(backend: Backend) async throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "passserver-crash")
        let certificates = try TestCertificates.make(in: directory)
        let fake = try PushFixture.makeFake(certificates, defaultAnswer: .delayed(seconds: 3, then: .success))
        defer { fake.shutdown() }

        // Set up through a short-lived in-process app (which migrates), then enqueue while no
        // dispatcher runs, exactly as the admin API's change does.
        let setup = try PushFixture(backend: backend, fake: fake, certificates: certificates)
        let (serial, tokens) = try PushResilienceTests.bulkRegistrations(setup, count: Self.pushCount)
        let passType = setup.app.passType
        let databaseURL = setup.app.databaseURL
        await offPool { setup.app.stop() }
        let store = try Storage.openStore(url: databaseURL)
        defer { store.close() }
        _ = try store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: passType, serialNumber: "\(serial)", change: PassChange(seat: "Z9"), now: Date()) }
        #expect(try store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }.pending == Self.pushCount)

        let environment = Self.environment(certificates, databaseURL: databaseURL, fake: fake)
        let first = try ServerProcess(["serve"], environment: environment, directory: directory)
        // The first round (200 rows, PUSH_CONCURRENCY) has been answered and recorded once the
        // second round is being sent; kill while that one waits for its slow answers.
        let pid = first.process.processIdentifier
        let killed = await ServerProcess.killAsSoonAs { fake.pushes.count > 200 ? pid : nil }
        #expect(killed == pid, "first process sending its second round")
        first.forceKill()
        let counts = try store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }
        let inFlight = counts.inFlight
        let deliveredBeforeKill = Self.pushCount - counts.pending
        #expect(inFlight > 0, "the kill hit a batch in flight")
        #expect(deliveredBeforeKill > 0, "the first round was recorded before the kill")

        let second = try ServerProcess(["serve"], environment: environment, directory: directory)
        try await eventually("second process delivered everything", timeout: 90) { try store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }.pending == 0 }
        let perToken = Dictionary(grouping: fake.pushes.filter { $0.status == 200 }, by: \.token).mapValues(\.count)
        #expect(tokens.allSatisfy { (perToken[$0] ?? 0) >= 1 }, "every token got a push")
        let duplicates = perToken.values.reduce(0) { $0 + $1 - 1 }
        #expect(duplicates <= inFlight, "duplicates \(duplicates) exceed the \(inFlight) in flight at the kill")
        print("\(backend): \(deliveredBeforeKill) recorded before the kill, \(inFlight) in flight, \(duplicates) sent twice")
        #expect(deliveredBeforeKill + inFlight <= Self.pushCount)

        // SIGTERM drains and exits cleanly.
        second.signal(SIGTERM)
        let status = await second.waitForExit(timeout: 30)
        #expect(status != nil)
        if let status { #expect(status == 0) }
    }
}
