import Certificates
import Foundation
import Logging
import PassServerFixtures
import PassServerTesting
import Synchronization
import Testing

@testable import PassServer

@Suite("Certificate expiry", .offCooperativePool, .timeLimit(.minutes(4)), .tags(.endToEnd))
struct CertificateExpiryTests {
    static let day: TimeInterval = 86_400

    /// A pass certificate from the test CA valid until `notAfter`, written next to `certificates`;
    /// returns the certificate and key paths.
    static func passCertificate(_ certificates: TestCertificates, notBefore: Date, notAfter: Date) throws -> (String, String) {
        let issued = try certificates.wwdr.issue(
            subject: ["UID": TestCertificates.passTypeIdentifier, "CN": "Pass Type ID: \(TestCertificates.passTypeIdentifier)",
                      "OU": TestCertificates.teamIdentifier, "O": "PassServer Tests"],
            usage: .passSigning, notBefore: notBefore, notAfter: notAfter
        )
        let name = UUID().uuidString.prefix(8)
        let paths = ("\(certificates.directory)/pass-\(name).pem", "\(certificates.directory)/pass-\(name)-key.pem")
        try issued.write(certificateTo: paths.0, keyTo: paths.1)
        return paths
    }

    /// The `warnings` of a `/readyz` body (`component`, `message`); empty when absent or malformed.
    static func warnings(_ response: TestResponse) -> [[String: String]] {
        (response.jsonObject?["warnings"] as? [[String: String]]) ?? []
    }

    @Test("the warning starts 30 days before expiry and says how long is left")
    func window() {
        let expiry = Date(timeIntervalSince1970: 1_900_000_000)
        let certificate = CertificateMonitor.Certificate(name: "pass", title: "the pass certificate", subject: "CN=x", notAfter: expiry)
        func warning(_ offset: TimeInterval) -> String? { CertificateMonitor.warning(for: certificate, now: expiry.addingTimeInterval(offset)) }
        #expect(warning(-30 * Self.day - 1) == nil)
        #expect(warning(-30 * Self.day) == "the pass certificate expires in 30 days, on 2030-03-17T17:46:40Z: renew it")
        #expect(warning(-10 * Self.day + 1) == "the pass certificate expires in 9 days, on 2030-03-17T17:46:40Z: renew it")
        #expect(warning(-Self.day) == "the pass certificate expires in 1 day, on 2030-03-17T17:46:40Z: renew it")
        #expect(warning(-60) == "the pass certificate expires in less than a day, on 2030-03-17T17:46:40Z: renew it")
        #expect(warning(1) == "the pass certificate expired on 2030-03-17T17:46:40Z: renew it")
    }

    @Test("readiness lists the warning while it lasts; the log repeats it once a day, not on every check")
    func logOncePerDay() {
        let expiry = Date(timeIntervalSince1970: 1_900_000_000)
        let clock = Mutex(expiry.addingTimeInterval(-40 * Self.day))
        let sink = MemorySink()
        let readiness = Readiness()
        let monitor = CertificateMonitor(
            certificates: [.init(name: "wwdr", title: "the WWDR intermediate", subject: "CN=WWDR", notAfter: expiry)],
            readiness: readiness, logger: Logger(label: "certificates", sink: sink), now: { clock.withLock { $0 } }
        )
        func advance(_ seconds: TimeInterval) { clock.withLock { $0 = $0.addingTimeInterval(seconds) } }
        func logged() -> Int { sink.lines.filter { $0.contains("certificate expires soon") && $0.contains("certificate=wwdr") }.count }

        monitor.check()
        #expect(readiness.evaluate().isEmpty)
        #expect(logged() == 0)
        advance(10 * Self.day) // 30 days left
        monitor.check()
        #expect(readiness.evaluate() == [Readiness.Finding(
            severity: .warning, component: "certificate.wwdr", message: "the WWDR intermediate expires in 30 days, on 2030-03-17T17:46:40Z: renew it"
        )])
        #expect(logged() == 1)
        for _ in 0..<23 {
            advance(3_600)
            monitor.check()
        }
        #expect(logged() == 1, "hourly checks within the day log nothing more")
        advance(3_600)
        monitor.check()
        #expect(logged() == 2, "a day after the first warning, the next")
        #expect(readiness.evaluate().allSatisfy { $0.severity == .warning }, "a warning never makes the process unready")
    }

    @Test("/metrics shows each expiry; /readyz stays 200 and lists a warning within 30 days (moved clock)")
    func metricsAndReadiness() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "expiry")
        let certificates = try TestCertificates.make(in: directory)
        let passExpiry = certificates.identity.notAfter
        let wwdrExpiry = try CertificateValidity(der: certificates.wwdr.certificate.certificateDER).notAfter

        let soon = try TestApp.start(.sqlite, certificates: certificates, frozenAt: passExpiry.addingTimeInterval(-10 * Self.day - 60))
        defer { soon.stop() }
        let ready = try soon.request("GET", "/readyz")
        #expect(ready.status == 200)
        #expect(ready.jsonObject?["status"] as? String == "ready")
        #expect(ready.jsonObject?["reasons"] as? [[String: String]] == [])
        let warnings = Self.warnings(ready)
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?["component"] == "certificate.pass", "\(warnings)")
        #expect(warnings.first?["message"]?.hasPrefix("the pass certificate expires in 10 days, on ") == true, "\(warnings)")
        let metrics = try soon.request("GET", "/metrics").text
        #expect(metrics.contains(#"passserver_certificate_expiry_timestamp_seconds{certificate="pass"} \#(Int(passExpiry.timeIntervalSince1970))"#), "\(metrics)")
        #expect(metrics.contains(#"passserver_certificate_expiry_timestamp_seconds{certificate="wwdr"} \#(Int(wwdrExpiry.timeIntervalSince1970))"#))
        #expect(soon.logs.lines.filter { $0.contains("certificate expires soon") }.count == 1)

        let later = try TestApp.start(.sqlite, certificates: certificates, frozenAt: passExpiry.addingTimeInterval(-30 * Self.day - 60))
        defer { later.stop() }
        let clear = try later.request("GET", "/readyz")
        #expect(clear.status == 200)
        #expect(clear.text == #"{"reasons":[],"status":"ready","warnings":[]}"#, "no warnings before the window: \(clear.text)")

        #expect(throws: StartupError.self) {
            _ = try TestApp.start(.sqlite, certificates: certificates, frozenAt: passExpiry.addingTimeInterval(1))
        }
    }

    @Test("a real certificate that expires in ten days gives the warning without any moved clock")
    func realCertificateExpiringSoon() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "expiry-real")
        let certificates = try TestCertificates.make(in: directory)
        let (certificate, key) = try Self.passCertificate(certificates, notBefore: Date(timeIntervalSinceNow: -Self.day), notAfter: Date(timeIntervalSinceNow: 10 * Self.day))
        let app = try TestApp.start(.sqlite, certificates: certificates) { configuration in
            configuration.signing.certificate = certificate
            configuration.signing.privateKey = key
        }
        defer { app.stop() }
        let ready = try app.request("GET", "/readyz")
        #expect(ready.status == 200)
        let warnings = Self.warnings(ready)
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?["message"]?.hasPrefix("the pass certificate expires in 9 days") == true, "\(warnings)")
    }

    @Test("with live pushes the APNs CA file's expiry is shown too")
    func apnsCertificateAuthority() throws {
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "expiry-apns"))
        let fake = try PushFixture.makeFake(certificates)
        defer { fake.shutdown() }
        let app = try TestApp.start(.sqlite, apns: fake, certificates: certificates)
        defer { app.stop() }
        let root = try CertificateValidity.read(file: certificates.rootCertificate)
        let metrics = try app.request("GET", "/metrics").text
        #expect(metrics.contains(#"passserver_certificate_expiry_timestamp_seconds{certificate="apns_ca"} \#(Int(root[0].notAfter.timeIntervalSince1970))"#), "\(metrics)")
    }

    @Test("serve refuses an expired pass certificate with exit 64 and says which and when")
    func expiredCertificateExits64() async throws {
        let fixture = try ProcessFixture(.sqlite)
        let (certificate, key) = try Self.passCertificate(
            fixture.certificates, notBefore: Date(timeIntervalSinceNow: -30 * Self.day), notAfter: Date(timeIntervalSinceNow: -Self.day)
        )
        let server = try fixture.launch(extra: ["PASS_CERTIFICATE": certificate, "PASS_PRIVATE_KEY": key])
        defer { server.forceKill() }
        let status = await server.waitForExit(timeout: 60)
        #expect(status == 64, "\(server.standardError)")
        #expect(server.standardError.contains("PASS_CERTIFICATE:"), "\(server.standardError)")
        #expect(server.standardError.contains("expired on"), "\(server.standardError)")
        #expect(!server.standardError.contains(": listening"))
    }
}
