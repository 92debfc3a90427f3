import Foundation
import PassBundle
import PassServerTesting
import Testing

@testable import Fleet

@Suite("A phone's checks of a downloaded pass: unzip, manifest, CMS signature", .offCooperativePool)
struct PassVerifierTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// A pass signed by the test identity, and the certificates.
    static func signedPass(venue: String = "Hall 9") throws -> ([UInt8], TestCertificates) {
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "fleet-verifier"))
        let template = try Template.load(directory: repositoryRoot + "/Passes/event-ticket")
        let data = TicketData(
            serialNumber: "S-\(UUID().uuidString.prefix(8))", authenticationToken: "0123456789abcdef0123",
            webServiceURL: "https://passes.example.com/", organizationName: "Example", description: "Ticket",
            eventName: "Night", venue: venue, startsAt: Date(timeIntervalSince1970: 1_780_000_000), endsAt: nil,
            timeZone: "Asia/Tokyo", attendeeName: "Ada", seat: nil, cancelled: false
        )
        return (try PassBundle.build(template: template, data: data, identity: certificates.identity), certificates)
    }

    @Test("a signed pass unzips and verifies against the root that issued its chain")
    func verifies() throws {
        let (bundle, certificates) = try Self.signedPass()
        let files = try PassArchive.files(bundle)
        #expect(files.keys.contains("pass.json") && files.keys.contains("manifest.json") && files.keys.contains("signature"))
        let only = try PassArchive.files(bundle, named: ["pass.json"])
        #expect(Array(only.keys) == ["pass.json"])
        #expect(only["pass.json"] == files["pass.json"])
        try PassVerifier(trustRoot: certificates.rootCertificate).verify(files)
    }

    @Test("a changed file, a missing or extra file, a foreign signature and an untrusted root all fail")
    func tampering() throws {
        let (bundle, certificates) = try Self.signedPass()
        let (other, _) = try Self.signedPass(venue: "Other Hall")
        let files = try PassArchive.files(bundle)
        let verifier = try PassVerifier(trustRoot: certificates.rootCertificate)

        var changed = files
        changed["pass.json"]?.append(0x20)
        #expect(throws: FleetError.self) { try verifier.verify(changed) }
        var extra = files
        extra["extra.png"] = [1, 2, 3]
        #expect(throws: FleetError.self) { try verifier.verify(extra) }
        var missing = files
        missing["icon.png"] = nil
        #expect(throws: FleetError.self) { try verifier.verify(missing) }
        var foreign = files
        foreign["signature"] = try PassArchive.files(other)["signature"]
        #expect(throws: FleetError.self) { try verifier.verify(foreign) }
        let untrusted = try PassVerifier(trustRoot: certificates.untrustedRootCertificate)
        #expect(throws: FleetError.self) { try untrusted.verify(files) }
    }

    @Test("a signature that fails and a trust root that cannot be loaded say why, in OpenSSL's words")
    func reasons() throws {
        let (bundle, certificates) = try Self.signedPass()
        let files = try PassArchive.files(bundle)
        let untrusted = try PassVerifier(trustRoot: certificates.untrustedRootCertificate)
        let rejected = try #require(throws: FleetError.self) { try untrusted.verify(files) }
        #expect(rejected.code == .invalidPass)
        #expect(rejected.message.hasPrefix("the signature does not verify over manifest.json: cannot verify the signature ("))
        #expect(rejected.message.contains("certificate verify error"), "\(rejected.message)")

        let missing = certificates.directory + "/no-such-root.pem"
        let unloadable = try #require(throws: FleetError.self) { try PassVerifier(trustRoot: missing) }
        #expect(unloadable.code == .invalidConfiguration)
        #expect(unloadable.message.hasPrefix("cannot load the trust root \(missing) (error:"), "\(unloadable.message)")
    }

    @Test("bytes that are not a zip archive are refused")
    func notZip() {
        #expect(throws: FleetError.self) { try PassArchive.files(Array("PK not really".utf8)) }
    }
}
