import Foundation
import PassServerTesting
import Testing

@testable import Certificates

@Suite("Detached CMS signatures and trust stores: owned wrappers, OpenSSL's reasons in typed errors", .offCooperativePool)
struct CMSSignatureTests {
    static let content = Array(#"{"pass.json":"0000"}"#.utf8)

    /// A signature over `content` by the test pass identity, with the WWDR intermediate embedded.
    static func sign(_ certificates: TestCertificates, _ content: [UInt8] = content) throws -> [UInt8] {
        let identity = certificates.identity
        return try CMSSignature.detached(
            over: content, signingTime: Date(timeIntervalSince1970: 1_780_000_000),
            signer: X509Certificate(der: identity.certificateDER), key: PrivateKey(der: identity.privateKeyDER),
            digest: Digest.sha256(), extraCertificates: [X509Certificate(der: identity.requireIntermediate())]
        )
    }

    @Test("a signature verifies over its content against the root that issued the chain, and survives a DER round trip")
    func verifies() throws {
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "cms-signature"))
        let signature = try Self.sign(certificates)
        let parsed = try CMSSignature(der: signature)
        #expect(try parsed.der() == signature)
        try parsed.verify(detachedContent: Self.content, trusting: CertificateStore(trustingPEMFile: certificates.rootCertificate))
    }

    @Test("changed content, an untrusted root and bytes that are no signature throw OpenSSL's reasons")
    func failuresCarryReasons() throws {
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "cms-signature"))
        let signature = try CMSSignature(der: Self.sign(certificates))
        let trusted = try CertificateStore(trustingPEMFile: certificates.rootCertificate)

        let changed = try #require(throws: OpenSSLError.self) {
            try signature.verify(detachedContent: Self.content + [0x20], trusting: trusted)
        }
        #expect(changed.operation == "verify the signature")
        #expect(changed.queue.contains { $0.contains("verification failure") || $0.contains("digest failure") }, "\(changed.queue)")

        let untrusted = try CertificateStore(trustingPEMFile: certificates.untrustedRootCertificate)
        let foreign = try #require(throws: OpenSSLError.self) { try signature.verify(detachedContent: Self.content, trusting: untrusted) }
        #expect(foreign.queue.contains { $0.contains("certificate verify error") }, "\(foreign.queue)")

        let garbage = try #require(throws: OpenSSLError.self) { try CMSSignature(der: [0x30, 0x03, 0x02, 0x01]) }
        #expect(garbage.operation == "read a CMS signature")
        #expect(garbage.queue.contains { $0.localizedCaseInsensitiveContains("asn1") }, "\(garbage.queue)")
    }

    @Test("a trust root that cannot be loaded throws with the file named and OpenSSL's reasons")
    func unreadableTrustRoot() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "cms-signature")
        let missing = directory + "/missing.pem"
        let error = try #require(throws: OpenSSLError.self) { try CertificateStore(trustingPEMFile: missing) }
        #expect(error.operation == "load the trust root \(missing)")
        #expect(!error.queue.isEmpty)
        let notPEM = directory + "/not.pem"
        try Data("no certificate here".utf8).write(to: URL(fileURLWithPath: notPEM))
        #expect(throws: OpenSSLError.self) { try CertificateStore(trustingPEMFile: notPEM) }
    }

    @Test("a malformed certificate or key is a CertificateError carrying the OpenSSL reason")
    func malformedCertificateAndKey() throws {
        let garbage: [UInt8] = [0x30, 0x03, 0x02, 0x01]
        let certificate = try #require(throws: CertificateError.self) { try X509Certificate(der: garbage, what: "the test certificate") }
        #expect(certificate.code == .unreadable)
        #expect(certificate.message == "the test certificate is not a DER or PEM certificate")
        #expect(certificate.openSSLErrors.contains { $0.localizedCaseInsensitiveContains("asn1") }, "\(certificate.openSSLErrors)")
        #expect((certificate.underlying as? OpenSSLError)?.operation == "parse the certificate")

        let key = try #require(throws: CertificateError.self) { try PrivateKey(der: garbage) }
        #expect(key.code == .unreadable)
        #expect(!key.openSSLErrors.isEmpty)
        #expect((key.underlying as? OpenSSLError)?.queue == key.openSSLErrors)
    }
}
