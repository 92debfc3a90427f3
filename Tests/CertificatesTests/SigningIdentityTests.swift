import Certificates
import Foundation
import PassServerTesting
import Testing

@Suite("Loading signing identities", .offCooperativePool, .timeLimit(.minutes(3)))
struct SigningIdentityTests {
    private func certificates() throws -> TestCertificates {
        try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "certificates"))
    }

    private func loadError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> SigningIdentity) -> CertificateError? {
        #expect(throws: CertificateError.self, sourceLocation: sourceLocation) { _ = try body() }
    }

    @Test("a PEM pair with a PEM or DER WWDR yields the certificate's UID, OU and validity; the key is never printed")
    func loadsPEM() throws {
        let set = try certificates()
        let identity = try SigningIdentity.load(pem: set.passCertificate, privateKey: set.passKey, password: nil, wwdr: set.wwdrCertificate)
        #expect(identity.passTypeIdentifier == TestCertificates.passTypeIdentifier)
        #expect(identity.teamIdentifier == TestCertificates.teamIdentifier)
        #expect(identity.subject.contains("CN=Pass Type ID: \(TestCertificates.passTypeIdentifier)"))
        #expect(identity.notBefore < Date() && identity.notAfter > Date())
        #expect(identity.intermediateDER == set.wwdr.certificate.certificateDER)
        let fromDER = try SigningIdentity.load(pem: set.passCertificate, privateKey: set.passKey, password: nil, wwdr: set.wwdrCertificateDER)
        #expect(fromDER.intermediateDER == identity.intermediateDER)
        #expect(identity.description.contains("redacted"))
        let keyPEM = try String(contentsOfFile: set.passKey, encoding: .utf8)
        let keyBody = keyPEM.split(separator: "\n")[1]
        #expect(!"\(identity)".contains(keyBody) && !String(reflecting: identity).isEmpty)
    }

    @Test("a chain file (certificate followed by the WWDR) supplies the intermediate")
    func chainFile() throws {
        let set = try certificates()
        let chainPath = set.directory + "/chain.pem"
        let chain = try String(contentsOfFile: set.passCertificate, encoding: .utf8) + String(contentsOfFile: set.wwdrCertificate, encoding: .utf8)
        try chain.write(toFile: chainPath, atomically: true, encoding: .utf8)
        let identity = try SigningIdentity.load(pem: chainPath, privateKey: set.passKey, password: nil, wwdr: nil)
        #expect(identity.intermediateDER == set.wwdr.certificate.certificateDER)
        #expect(identity.certificateDER == set.identity.certificateDER)
        let keyMode = try FileManager.default.attributesOfItem(atPath: set.passP12)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
    }

    @Test("an encrypted key opens with its password and names the file when the password is wrong or missing")
    func encryptedKey() throws {
        let set = try certificates()
        let identity = try SigningIdentity.load(pem: set.passCertificate, privateKey: set.passKeyEncrypted, password: TestCertificates.password, wwdr: set.wwdrCertificate)
        #expect(identity.passTypeIdentifier == TestCertificates.passTypeIdentifier)
        let wrong = loadError { try SigningIdentity.load(pem: set.passCertificate, privateKey: set.passKeyEncrypted, password: "nope", wwdr: nil) }
        #expect(wrong?.code == .badPassword)
        #expect(wrong?.message.contains(set.passKeyEncrypted) == true && wrong?.message.contains("wrong password") == true)
        let missing = loadError { try SigningIdentity.load(pem: set.passCertificate, privateKey: set.passKeyEncrypted, password: nil, wwdr: nil) }
        #expect(missing?.code == .badPassword)
        #expect(missing?.message.contains("no password") == true)
        #expect(missing?.description.contains("nope") == false)
    }

    @Test(".p12 files, modern and legacy, load the same identity; a wrong password says so")
    func p12() throws {
        let set = try certificates()
        let modern = try SigningIdentity.load(p12: set.passP12, password: TestCertificates.password, wwdr: nil)
        let legacy = try SigningIdentity.load(p12: set.passP12Legacy, password: TestCertificates.password, wwdr: nil)
        let cliLegacy = set.directory + "/cli-legacy.p12"
        let export = try run("openssl", ["pkcs12", "-export", "-legacy", "-in", set.passCertificate, "-inkey", set.passKey,
                                         "-passout", "pass:cli", "-out", cliLegacy])
        #expect(export.status == 0, "\(export.error)")
        let fromCLI = try SigningIdentity.load(p12: cliLegacy, password: "cli", wwdr: set.wwdrCertificate)
        for identity in [modern, legacy, fromCLI] {
            #expect(identity.certificateDER == set.identity.certificateDER)
            #expect(identity.privateKeyDER == set.identity.privateKeyDER)
            #expect(identity.intermediateDER == set.wwdr.certificate.certificateDER)
        }
        let wrong = loadError { try SigningIdentity.load(p12: set.passP12Legacy, password: "wrong", wwdr: nil) }
        #expect(wrong?.code == .badPassword)
        #expect(wrong?.message.contains(set.passP12Legacy) == true)
        let notP12 = loadError { try SigningIdentity.load(p12: set.passCertificate, password: "x", wwdr: nil) }
        #expect(notP12?.code == .unreadable)
    }

    @Test("a key that belongs to another certificate is refused")
    func keyMismatch() throws {
        let set = try certificates()
        let error = loadError { try SigningIdentity.load(pem: set.passCertificate, privateKey: set.serverKey, password: nil, wwdr: set.wwdrCertificate) }
        #expect(error?.code == .keyMismatch)
        #expect(error?.message.contains(set.passCertificate) == true)
    }

    @Test("expired and not yet valid certificates are refused with their dates")
    func validity() throws {
        let set = try certificates()
        let expired = loadError {
            try SigningIdentity.load(pem: set.passCertificate, privateKey: set.passKey, password: nil, wwdr: set.wwdrCertificate, now: Date() + 3 * 365 * 86400)
        }
        #expect(expired?.code == .expired)
        #expect(expired?.message.contains("expired on") == true && expired?.message.contains(set.passCertificate) == true)
        let early = loadError {
            try SigningIdentity.load(pem: set.passCertificate, privateKey: set.passKey, password: nil, wwdr: set.wwdrCertificate, now: Date() - 86400)
        }
        #expect(early?.code == .notYetValid)
        // An expired WWDR (the G1 trap) is reported against the WWDR file.
        let oldWWDR = try set.root.issueIntermediate(subject: ["CN": "Old WWDR"], notBefore: Date() - 400 * 86400, notAfter: Date() - 86400)
        let oldPath = set.directory + "/old-wwdr.cer"
        try Data(oldWWDR.certificate.certificateDER).write(to: URL(fileURLWithPath: oldPath))
        let expiredWWDR = loadError { try SigningIdentity.load(pem: set.passCertificate, privateKey: set.passKey, password: nil, wwdr: oldPath) }
        #expect(expiredWWDR?.code == .expired)
        #expect(expiredWWDR?.message.contains("WWDR") == true && expiredWWDR?.message.contains(oldPath) == true)
    }

    @Test("certificates without UID or OU are refused")
    func missingSubjectParts() throws {
        let set = try certificates()
        for (subject, code) in [
            (DistinguishedName(dictionaryLiteral: ("CN", "No UID"), ("OU", "TEAM000001")), CertificateError.Code.missingUID),
            (DistinguishedName(dictionaryLiteral: ("UID", "pass.example.no-team"), ("CN", "No OU")), CertificateError.Code.missingTeamIdentifier),
        ] {
            let issued = try set.wwdr.issue(subject: subject, usage: .passSigning)
            let error = #expect(throws: CertificateError.self) {
                _ = try SigningIdentity(certificateDER: issued.certificateDER, privateKeyDER: issued.privateKeyDER, intermediateDER: nil, source: "odd.pem")
            }
            #expect(error?.code == code)
            #expect(error?.message.contains("odd.pem") == true)
        }
    }

    @Test("a WWDR that did not issue the certificate is refused; no WWDR is allowed until signing")
    func wwdrChecks() throws {
        let set = try certificates()
        let mismatch = loadError { try SigningIdentity.load(pem: set.passCertificate, privateKey: set.passKey, password: nil, wwdr: set.untrustedRootCertificate) }
        #expect(mismatch?.code == .wwdrMismatch)
        #expect(mismatch?.message.contains("G4") == true)
        let withoutWWDR = try SigningIdentity.load(pem: set.passCertificate, privateKey: set.passKey, password: nil, wwdr: nil)
        let missing = #expect(throws: CertificateError.self) { _ = try withoutWWDR.requireIntermediate() }
        #expect(missing?.code == .wwdrMissing)
        let unreadable = loadError { try SigningIdentity.load(pem: set.directory + "/absent.pem", privateKey: set.passKey, password: nil, wwdr: nil) }
        #expect(unreadable?.code == .unreadable)
        #expect(unreadable?.message.contains("absent.pem") == true)
    }
}
