import FakeAPNs
import PassIdentifiers
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The admin API and job tests' helpers beside the shared ones.
extension AdminSupport {
    /// A running app whose pushes go to a fake APNs that trusts the app's client certificate.
    static func startWithFakeAPNs(
        _ backend: Backend, configure: (inout Configuration) -> Void = { _ in }
    ) throws -> (TestApp, FakeAPNs) {
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "admin-apns"))
        let fake = try FakeAPNs(configuration: FakeAPNs.Configuration(
            certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey,
            clientCAPath: certificates.rootCertificate
        ))
        do {
            let app = try TestApp.start(backend, apns: fake, certificates: certificates, configure: configure)
            return (app, fake)
        } catch {
            fake.shutdown()
            throw error
        }
    }

    /// The field `key` of an event ticket's pass.json, from any field group.
    static func field(_ key: String, in pass: [String: Any]) -> [String: Any]? {
        guard let ticket = pass["eventTicket"] as? [String: Any] else { return nil }
        for group in ["headerFields", "primaryFields", "secondaryFields", "auxiliaryFields", "backFields"] {
            for field in (ticket[group] as? [[String: Any]]) ?? [] where field["key"] as? String == key {
                return field
            }
        }
        return nil
    }

    /// The path (with leading `/`) of an absolute URL string.
    static func path(of url: String?) throws -> String {
        guard let url, let components = URLComponents(string: url), !components.path.isEmpty else {
            throw Failure(description: "not a URL: \(url ?? "nil")")
        }
        return components.percentEncodedPath
    }

    /// A new pass row for `event`, with hashes derived exactly as `createTicket` derives them.
    static func newPass(event: String, vault: TokenVault, passType: String, attendee: String) throws -> NewPass {
        guard let type = PassTypeIdentifier(passType), let serial = SerialNumber(Crypto.randomToken(bytes: 15)) else {
            throw Failure(description: "invalid identifiers")
        }
        return try NewPass(
            passTypeIdentifier: type, serialNumber: serial,
            authenticationTokenHash: TokenVault.hash(vault.authenticationToken(passType: type, serial: serial).rawValue),
            downloadTokenHash: TokenVault.hash(vault.downloadToken(passType: type, serial: serial)),
            eventID: event, attendeeName: attendee
        )
    }

    /// Inserts `count` passes for `event` in one transaction; returns them in id order.
    static func insertPasses(_ count: Int, event: String, store: any Store, vault: TokenVault, passType: String) throws -> [StoredPass] {
        let now = Date()
        return try store.transaction { session in
            try (0..<count).map { index in
                try session.passes.insertPass(newPass(event: event, vault: vault, passType: passType, attendee: "Attendee \(index)"), now: now)
            }
        }
    }

    /// The global revision counter (the last revision handed out).
    static func revisionCounter(_ store: any Store) throws -> Int64 {
        guard let row = try store.execute("SELECT value FROM counters WHERE name = 'revision'").first else {
            throw Failure(description: "no revision counter")
        }
        return try row.int64("value")
    }
}
