import FakeAPNs
import Foundation
import PassServerTesting
import Testing

@testable import Fleet

@Suite("Fleet lifecycle: misuse is refused and shutdown releases whoever waits", .offCooperativePool, .timeLimit(.minutes(2)))
struct FleetLifecycleTests {
    static func fleet(requestTimeout: Double = 60) throws -> Fleet {
        try Fleet(configuration: configuration(requestTimeout: requestTimeout))
    }

    static func configuration(requestTimeout: Double = 60) throws -> FleetConfiguration {
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "fleet-lifecycle"))
        let apns = FakeAPNs.Configuration(
            certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey, clientCAPath: nil
        )
        var configuration = FleetConfiguration(layout: try FleetLayout(phones: 2), apns: apns)
        configuration.requestTimeout = requestTimeout
        configuration.signatureSample = 0
        return configuration
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

    @Test("a setup request answered 503 is sent again after its Retry-After, and only while attempts remain")
    func busyServerIsRetried() async throws {
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        let loop = try ClientPoolTests.loop(port: server.port)
        defer { loop.stop() }
        let driver = try FleetDriver(configuration: Self.configuration(), loop: loop)

        let began = Date()
        let retried = await Self.call(driver, "/busy-once", attempts: 2)
        #expect(retried == "200 ready")
        #expect(Date().timeIntervalSince(began) >= 0.9, "waited the Retry-After second before sending again")
        #expect(server.requests == ["/busy-once", "/busy-once"])

        // With one attempt the 503 is the answer: the retry above is what turned it into a 200.
        let second = try ScriptedHTTPServer()
        defer { second.stop() }
        loop.execute { loop.pool = ClientPool(port: second.port, capacity: 1, requestTimeout: 30) }
        #expect(await Self.call(driver, "/busy-once", attempts: 1).hasPrefix("failed: unexpectedResponse"))
        #expect(second.requests == ["/busy-once"])
    }

    /// Sends `target` through the driver's `call` on the loop; "status body" or "failed: code …".
    static func call(_ driver: FleetDriver, _ target: String, attempts: Int) async -> String {
        await withCheckedContinuation { continuation in
            driver.loop.execute {
                driver.call(ClientRequest(method: "GET", target: target), expect: [200], attempts: attempts, what: "a probe") { result in
                    switch result {
                    case .success(let response): continuation.resume(returning: "\(response.status) \(String(decoding: response.body, as: UTF8.self))")
                    case .failure(let error): continuation.resume(returning: "failed: \(error.code) \(error.message)")
                    }
                }
            }
        }
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
