import Certificates
import Foundation
import PassServerTesting
import Testing

@Suite("Development certificates", .offCooperativePool, .timeLimit(.minutes(3)))
struct DevelopmentCertificatesTests {
    @Test("generate writes a verifiable chain, a pass identity and a localhost server certificate, and keeps them on rerun")
    func generate() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "devcerts") + "/dev"
        let paths = try DevelopmentCertificates.generate(directory: directory)
        let identity = try DevelopmentCertificates.identity(in: directory)
        #expect(identity.passTypeIdentifier == "pass.dev.passserver.event")
        #expect(identity.teamIdentifier.count == 10)
        #expect(identity.subject.contains("CN=Pass Type ID: pass.dev.passserver.event"))

        let chain = try run("openssl", ["verify", "-CAfile", paths.rootCertificate, "-untrusted", paths.wwdrCertificate, paths.passCertificate])
        #expect(chain.status == 0, "\(chain.output) \(chain.error)")
        let server = try run("openssl", ["verify", "-CAfile", paths.rootCertificate, "-purpose", "sslserver", paths.serverCertificate])
        #expect(server.status == 0, "\(server.output) \(server.error)")
        let text = try run("openssl", ["x509", "-in", paths.serverCertificate, "-noout", "-text"])
        #expect(text.output.contains("IP Address:127.0.0.1") && text.output.contains("DNS:localhost"))
        #expect(text.output.contains("sha256WithRSAEncryption") && text.output.contains("2048 bit"))
        let keyMode = try FileManager.default.attributesOfItem(atPath: paths.passKey)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)

        let before = try Data(contentsOf: URL(fileURLWithPath: paths.passCertificate))
        let again = try DevelopmentCertificates.generate(directory: directory)
        #expect(again == paths)
        #expect(try Data(contentsOf: URL(fileURLWithPath: paths.passCertificate)) == before)

        // A different pass type identifier replaces the set.
        _ = try DevelopmentCertificates.generate(directory: directory, passTypeIdentifier: "pass.dev.other", teamIdentifier: "OTHERTEAM1")
        #expect(try DevelopmentCertificates.identity(in: directory).passTypeIdentifier == "pass.dev.other")
    }

    @Test("test certificates provide a trusted and an untrusted TLS server chain")
    func testChains() throws {
        let set = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "testcerts"))
        let trusted = try run("openssl", ["verify", "-CAfile", set.rootCertificate, set.serverCertificate])
        #expect(trusted.status == 0)
        let untrusted = try run("openssl", ["verify", "-CAfile", set.rootCertificate, set.untrustedServerCertificate])
        #expect(untrusted.status != 0)
        let client = try run("openssl", ["verify", "-CAfile", set.untrustedRootCertificate, "-purpose", "sslclient", set.untrustedClientCertificate])
        #expect(client.status == 0, "\(client.output) \(client.error)")
        let trustedClient = try run("openssl", ["verify", "-CAfile", set.rootCertificate, "-purpose", "sslclient", set.clientCertificate])
        #expect(trustedClient.status == 0, "\(trustedClient.output) \(trustedClient.error)")
        let passAsClient = try run("openssl", ["verify", "-CAfile", set.rootCertificate, "-untrusted", set.wwdrCertificate, "-purpose", "sslclient", set.passCertificate])
        #expect(passAsClient.status == 0, "\(passAsClient.output) \(passAsClient.error)")
    }
}

