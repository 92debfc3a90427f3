import Foundation
import PassServerTesting
import Testing

@testable import Fleet

@Suite("Fleet lifecycle: misuse is refused and shutdown releases whoever waits", .offCooperativePool, .timeLimit(.minutes(2)))
struct FleetLifecycleTests {
    static func fleet(requestTimeout: Double = 60) throws -> Fleet {
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "fleet-lifecycle"))
        let apns = FakeAPNs.Configuration(
            certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey, clientCAPath: nil
        )
        var configuration = FleetConfiguration(layout: try FleetLayout(phones: 2), apns: apns)
        configuration.requestTimeout = requestTimeout
        configuration.signatureSample = 0
        return try Fleet(configuration: configuration)
    }

    @Test("an edit before the setup is refused")
    func editFirst() async throws {
        let fleet = try Self.fleet()
        defer { fleet.shutdown() }
        await #expect { try await fleet.editVenue() } throws: { ($0 as? FleetError)?.code == .invalidConfiguration }
    }

    @Test("shutdown fails a setup stuck on a server that never answers, at once")
    func shutdownReleasesSetup() async throws {
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        // A request timeout far beyond the suite's time limit: only the shutdown can release the setup.
        let fleet = try Self.fleet(requestTimeout: 600)
        let setup = Task { try await fleet.setUp(serverPort: server.port, adminToken: "psa_test") }
        // The request is on the wire (the server accepted it) before the shutdown. The deadline is
        // generous: on a busy machine the setup task may start late.
        let deadline = Date().addingTimeInterval(60)
        while server.accepted == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.accepted == 1)
        let shutdown = Date()
        fleet.shutdown()
        await #expect { try await setup.value } throws: { ($0 as? FleetError)?.code == .shutdown }
        #expect(Date().timeIntervalSince(shutdown) < 60, "released by the shutdown, not by the 600 s request timeout")
        await #expect { try await fleet.editVenue() } throws: { ($0 as? FleetError)?.code == .shutdown }
    }

    @Test("a configuration that cannot work is refused with every problem named")
    func badConfiguration() throws {
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "fleet-lifecycle"))
        let apns = FakeAPNs.Configuration(certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey, clientCAPath: nil)
        var configuration = FleetConfiguration(layout: try FleetLayout(phones: 2), apns: apns)
        configuration.connections = 0
        configuration.signatureSample = 0.5
        configuration.trustRoot = nil
        #expect {
            try Fleet(configuration: configuration)
        } throws: { error in
            let message = (error as? FleetError)?.message ?? ""
            return message.contains("connections") && message.contains("trust root")
        }
    }
}
