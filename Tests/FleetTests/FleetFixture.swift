import FakeAPNs
import Fleet
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage

@testable import PassServer

/// A phone fleet whose fake APNs and signature checks use one set of throwaway certificates, and
/// the settings the fleet tests share: short think times and backoff, every pass.json checked.
struct FleetFixture {
    let certificates: TestCertificates
    let directory: String

    init() throws {
        directory = try TestCertificates.temporaryDirectory(prefix: "passserver-fleet")
        certificates = try TestCertificates.make(in: directory)
    }

    /// A fleet of `phones` phones; `configure` adjusts the configuration.
    func fleet(phones: Int, passesPerPhone: Int = 1, configure: (inout FleetConfiguration) -> Void = { _ in }) throws -> Fleet {
        let apns = FakeAPNs.Configuration(
            certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey, clientCAPath: certificates.rootCertificate
        )
        var configuration = FleetConfiguration(layout: try FleetLayout(phones: phones, passesPerPhone: passesPerPhone), apns: apns)
        configuration.connections = 16
        configuration.thinkTime = 0...0.5
        configuration.retryBase = 0.2
        configuration.retryMaximum = 2
        configuration.requestTimeout = 20
        configuration.deadline = 120
        configuration.contentSample = 1
        configuration.signatureSample = 0.1
        configuration.trustRoot = certificates.rootCertificate
        configure(&configuration)
        return try Fleet(configuration: configuration)
    }

    /// An in-process application pushing to the fleet's fake APNs.
    func app(_ backend: Backend, fleet: Fleet, configure: (inout Configuration) -> Void = { _ in }) throws -> TestApp {
        try TestApp.start(backend, apns: fleet.apns, certificates: certificates, configure: configure)
    }
}
