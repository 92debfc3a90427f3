import Fleet
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Synchronization
import Testing

@testable import PassServer

/// The fetch storm survives a crash of the real server process: SIGKILL while phones are being
/// updated, a restart on the same port and database, and every phone still ends on the new pass.
@Suite("Phone fleet: SIGKILL of the server mid-storm", .offCooperativePool, .serialized, .timeLimit(.minutes(5)), .tags(.endToEnd))
struct FleetCrashTests {
    static let phones = 300

    @Test("SIGKILL mid-storm, restart on the same port and database: every phone ends updated", arguments: Backend.allCases)
    func killMidStorm(backend: Backend) async throws {
        let fixture = try FleetFixture()
        let fleet = try fixture.fleet(phones: Self.phones) { configuration in
            // Long enough a storm for the kill to land in it; the job pushes in many small batches.
            configuration.thinkTime = 0...3
            configuration.signatureSample = 0.02
        }
        defer { fleet.shutdown() }
        let databaseURL = try backend.freshDatabaseURL(in: fixture.directory)
        let store = try Storage.openStore(url: databaseURL, options: StoreOptions())
        defer { store.close() }
        try store.migrate()
        let adminToken = AdminAuthentication.newToken()
        _ = try store.withSession(.write) { try $0.admin.createAdminToken(name: "fleet", tokenHash: TokenVault.hash(adminToken), now: Date()) }
        // The restart takes the same port (`RestartablePort`: one nothing else takes meanwhile).
        let port = try RestartablePort.free()
        let environment = ServerProcess.environment(certificates: fixture.certificates, databaseURL: databaseURL).merging([
            "HTTP_PORT": String(port), "APNS_MODE": "live", "APNS_URL": fleet.apns.url, "APNS_CA_FILE": fixture.certificates.rootCertificate,
            "APNS_REQUEST_TIMEOUT": "4", "PUSH_LEASE": "3", "JOB_LEASE": "2s", "JOB_BATCH_SIZE": "10",
        ]) { _, override in override }

        let first = try ServerProcess(["serve"], environment: environment, directory: fixture.directory)
        #expect(try await first.port() == port)
        _ = try await fleet.setUp(serverPort: UInt16(port), adminToken: adminToken)

        async let edit = fleet.editVenue()
        let updatedAtKill = await Self.killWhenUpdating(first, fleet: fleet, atLeast: Self.phones / 10)
        first.forceKill()
        #expect(updatedAtKill >= Self.phones / 10, "the storm never reached a tenth of the phones: \(first.standardError.suffix(2_000))")
        #expect(updatedAtKill < Self.phones, "killed before the storm was over")

        let second = try ServerProcess(["serve"], environment: environment, directory: fixture.directory)
        defer { second.forceKill() }
        let report = try await edit
        print("\(backend): killed at \(updatedAtKill)/\(Self.phones) phones updated\n\(report.summary)")

        #expect(report.updatedPhones == Self.phones, "\(report.summary)\n\(second.standardError.suffix(2_000))")
        #expect(report.phonesLeftBehind == 0)
        #expect(report.contentMismatches == 0)
        #expect(report.signatureFailures == 0)
        // The kill was felt: requests failed while the server was down and were retried.
        #expect(report.fetchFailures + report.listFailures > 0, "\(report.summary)")
        #expect(try store.withSession(.read) { try $0.events.event(id: report.setup?.eventID ?? "") }?.venue == report.venue)
    }

    /// SIGKILLs the server once `atLeast` phones hold the new pass; returns how many did then. A
    /// thread of its own watches, so a busy cooperative pool cannot delay the kill.
    static func killWhenUpdating(_ server: ServerProcess, fleet: Fleet, atLeast: Int) async -> Int {
        let outcome = Atomic<Int>(-1)
        let pid = server.process.processIdentifier
        let watcher = Thread {
            let deadline = Date().addingTimeInterval(90)
            while Date() < deadline {
                let updated = fleet.updatedPhones
                if updated >= atLeast {
                    kill(pid, SIGKILL)
                    outcome.store(updated, ordering: .sequentiallyConsistent)
                    return
                }
                usleep(1_000)
            }
            outcome.store(fleet.updatedPhones, ordering: .sequentiallyConsistent)
        }
        watcher.start()
        while outcome.load(ordering: .sequentiallyConsistent) < 0 { try? await Task.sleep(for: .milliseconds(20)) }
        return outcome.load(ordering: .sequentiallyConsistent)
    }
}
