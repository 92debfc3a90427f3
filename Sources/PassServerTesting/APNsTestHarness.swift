// Starts a FakeAPNs and an APNSClient pointed at it, over real TLS and HTTP/2, with certificates from
// the shared throwaway CA (`TestCertificates`): the fake serves `root` → server certificate for
// 127.0.0.1 and requires a client certificate from `root`; the client presents the pass identity
// (`root` → WWDR → pass certificate, the WWDR sent as its chain), as a real pass server does.

public import APNs
public import Certificates
public import FakeAPNs
import Foundation
import Logging
public import PassIdentifiers
import Synchronization

public struct APNsTestHarness: Sendable {
    public let fake: FakeAPNs
    public let client: APNSClient
    public let certificates: TestCertificates

    public static let topic: PassTypeIdentifier = "pass.com.example.tickets"

    /// A fake requiring the test CA's client certificate, and a client presenting it.
    public static func start(
        configureFake: (inout FakeAPNs.Configuration) -> Void = { _ in },
        configureClient: (inout APNSConfiguration) -> Void = { _ in }
    ) throws -> APNsTestHarness {
        let certificates = try sharedCertificates()
        var fakeConfiguration = FakeAPNs.Configuration(
            certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey,
            clientCAPath: certificates.rootCertificate
        )
        configureFake(&fakeConfiguration)
        let fake = try FakeAPNs(configuration: fakeConfiguration)
        var configuration = clientConfiguration(certificates, url: fake.url)
        configuration.requestTimeout = 30
        configureClient(&configuration)
        let client = try APNSClient(configuration: configuration, logger: Logger(label: "apns-test", level: .error))
        return APNsTestHarness(fake: fake, client: client, certificates: certificates)
    }

    public func stop() {
        client.shutdown()
        fake.shutdown()
    }

    /// A distinct token per index (64 hex digits). The fake keys its scripts and records by the
    /// token's `rawValue`.
    public static func token(_ index: Int) -> PushToken {
        PushToken.hex(String(format: "%064x", index + 1))
    }

    /// A client configuration for `url` presenting the pass identity (WWDR as its chain) and
    /// trusting the test root for the server certificate.
    public static func clientConfiguration(_ certificates: TestCertificates, url: String) -> APNSConfiguration {
        let identity = certificates.identity
        var configuration = APNSConfiguration(clientCertificateDER: identity.certificateDER, clientPrivateKeyDER: identity.privateKeyDER)
        configuration.clientChainDER = identity.intermediateDER.map { [$0] } ?? []
        configuration.url = url
        configuration.caFile = certificates.rootCertificate
        return configuration
    }

    /// A client identity issued by the untrusted root (a fake requiring `root` refuses it).
    public static func strangerIdentity(_ certificates: TestCertificates) throws -> SigningIdentity {
        try SigningIdentity.load(
            pem: certificates.untrustedClientCertificate, privateKey: certificates.untrustedClientKey, password: nil, wwdr: nil
        )
    }

    /// The test CA's files, written once per test process into a directory of their own.
    public static func sharedCertificates() throws -> TestCertificates {
        try certificateCache.withLock { cached in
            if let cached { return cached }
            let made = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "apns-tests"))
            cached = made
            return made
        }
    }

    private static let certificateCache = Mutex<TestCertificates?>(nil)
}
