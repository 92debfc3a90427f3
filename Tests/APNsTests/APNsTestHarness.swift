// Starts a FakeAPNs and an APNSClient pointed at it, over real TLS and HTTP/2.

import APNs
import Foundation
import Logging
import PassServerTesting

struct APNsTestHarness {
    let fake: FakeAPNs
    let client: APNSClient
    let pki: APNsTestPKI

    static let topic = "pass.com.example.tickets"

    /// A fake requiring the test CA's client certificate, and a client presenting it.
    static func start(
        configureFake: (inout FakeAPNs.Configuration) -> Void = { _ in },
        configureClient: (inout APNSConfiguration) -> Void = { _ in }
    ) throws -> APNsTestHarness {
        let pki = try APNsTestPKI.shared()
        var fakeConfiguration = FakeAPNs.Configuration(
            certificatePath: pki.serverCertificatePath, privateKeyPath: pki.serverKeyPath, clientCAPath: pki.caPath
        )
        configureFake(&fakeConfiguration)
        let fake = try FakeAPNs(configuration: fakeConfiguration)
        var configuration = APNSConfiguration(clientCertificateDER: pki.clientCertificateDER, clientPrivateKeyDER: pki.clientKeyDER)
        configuration.url = fake.url
        configuration.caFile = pki.caPath
        configuration.requestTimeout = 30
        configureClient(&configuration)
        let client = try APNSClient(configuration: configuration, logger: Logger(label: "apns-test", level: .error))
        return APNsTestHarness(fake: fake, client: client, pki: pki)
    }

    func stop() {
        client.shutdown()
        fake.shutdown()
    }

    /// A distinct hex token per index.
    static func token(_ index: Int) -> String {
        String(format: "%064x", index + 1)
    }
}
