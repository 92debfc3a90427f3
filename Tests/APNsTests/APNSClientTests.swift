import APNs
import FakeAPNs
import Foundation
import Logging
import PassIdentifiers
import PassServerTesting
import Testing

@Suite("APNSClient against FakeAPNs (TLS + HTTP/2)", .offCooperativePool, .timeLimit(.minutes(2)))
struct APNSClientTests {
    @Test("sends POST /3/device/<token> with the pass-update headers and exactly {}")
    func requestShape() async throws {
        let harness = try APNsTestHarness.start()
        defer { harness.stop() }
        let token = APNsTestHarness.token(7)
        let before = Int64(Date().timeIntervalSince1970)
        let response = try await harness.client.send(APNSRequest(pushToken: token, topic: APNsTestHarness.topic))
        #expect(response.status == 200)
        #expect(response.apnsID?.count == 36)
        let push = try #require(harness.fake.pushes.first)
        #expect(push.method == "POST")
        #expect(push.path == "/3/device/" + token.rawValue)
        #expect(push.token == token.rawValue)
        #expect(push.topic == APNsTestHarness.topic.rawValue)
        #expect(push.headers["apns-push-type"] == "background")
        #expect(push.headers["apns-priority"] == "5")
        #expect(push.headers["content-type"] == "application/json")
        #expect(push.headers[":scheme"] == "https")
        #expect(push.headers[":authority"] == "127.0.0.1:\(harness.fake.port)")
        #expect(push.body == Array("{}".utf8))
        let expiration = try #require(push.headers["apns-expiration"].flatMap { Int64($0) })
        let threeDays: Int64 = 3 * 24 * 3600
        #expect(expiration >= before + threeDays && expiration <= before + threeDays + 60)
    }

    @Test("every reply-table status decodes to the right response")
    func replyTable() async throws {
        let harness = try APNsTestHarness.start()
        defer { harness.stop() }
        let cases: [(FakeAPNs.Answer, Int, APNSReason?)] = [
            (.success, 200, nil),
            (.unregistered(timestampMilliseconds: 1_700_000_000_500), 410, .unregistered),
            (.error(status: 400, reason: "BadDeviceToken"), 400, .badDeviceToken),
            (.error(status: 400, reason: "BadTopic"), 400, .badTopic),
            (.error(status: 403, reason: "BadCertificate"), 403, .badCertificate),
            (.error(status: 429, reason: "TooManyRequests"), 429, .tooManyRequests),
            (.error(status: 503, reason: "ServiceUnavailable"), 503, .serviceUnavailable),
            (.error(status: 500, reason: "InternalServerError"), 500, .internalServerError),
            (.error(status: 400, reason: "BrandNewReason"), 400, .unknown("BrandNewReason")),
        ]
        for (index, (answer, status, reason)) in cases.enumerated() {
            let token = APNsTestHarness.token(100 + index)
            harness.fake.script(token: token.rawValue, [answer])
            let response = try await harness.client.send(APNSRequest(pushToken: token, topic: APNsTestHarness.topic))
            #expect(response.status == status, "answer \(answer)")
            #expect(response.reason == reason, "answer \(answer)")
            #expect(response.apnsID != nil)
            if status == 410 { #expect(response.timestamp == Date(timeIntervalSince1970: 1_700_000_000.5)) }
        }
        // 429 and 503 are scripted once: the retry gets 200.
        let limited = APNsTestHarness.token(999)
        harness.fake.script(token: limited.rawValue, [.error(status: 429, reason: "TooManyRequests")])
        #expect(try await harness.client.send(APNSRequest(pushToken: limited, topic: APNsTestHarness.topic)).status == 429)
        #expect(try await harness.client.send(APNSRequest(pushToken: limited, topic: APNsTestHarness.topic)).status == 200)
    }

    @Test("a bad token path is answered 400 BadDeviceToken by the fake, not crashed on")
    func badTokenAnsweredByServer() async throws {
        let harness = try APNsTestHarness.start()
        defer { harness.stop() }
        // The server never builds such a token (`PushToken` refuses the text); one marked trusted
        // without being checked shows what the fake answers.
        let text = "nothex"
        #expect(PushToken(text) == nil)
        let response = try await harness.client.send(APNSRequest(pushToken: PushToken(trusted: text), topic: APNsTestHarness.topic))
        #expect(response.status == 400)
        #expect(response.reason == .badDeviceToken)
    }

    @Test("the client certificate is presented; one from another CA is refused")
    func clientCertificate() async throws {
        let harness = try APNsTestHarness.start()
        defer { harness.stop() }
        let (ab, cd, ef) = (PushToken.fixture("ab"), PushToken.fixture("cd"), PushToken.fixture("ef"))
        #expect(try await harness.client.send(APNSRequest(pushToken: ab, topic: APNsTestHarness.topic)).status == 200)

        let strangerIdentity = try APNsTestHarness.strangerIdentity(harness.certificates)
        var configuration = APNsTestHarness.clientConfiguration(harness.certificates, url: harness.fake.url)
        configuration.clientCertificateDER = strangerIdentity.certificateDER
        configuration.clientPrivateKeyDER = strangerIdentity.privateKeyDER
        configuration.clientChainDER = []
        let stranger = try APNSClient(configuration: configuration, logger: Logger(label: "t", level: .critical))
        defer { stranger.shutdown() }
        let refused = await #expect(throws: APNSError.self) {
            try await stranger.send(APNSRequest(pushToken: cd, topic: APNsTestHarness.topic))
        }
        #expect(refused?.code == .tls, "a rejected client certificate is a TLS failure, not a retryable one")
        var anonymous = configuration
        anonymous.clientCertificateDER = []
        anonymous.clientPrivateKeyDER = []
        let nobody = try APNSClient(configuration: anonymous, logger: Logger(label: "t", level: .critical))
        defer { nobody.shutdown() }
        let anonymousError = await #expect(throws: APNSError.self) {
            try await nobody.send(APNSRequest(pushToken: ef, topic: APNsTestHarness.topic))
        }
        #expect(anonymousError?.code == .tls)
        #expect(harness.fake.pushes.map(\.token) == [ab.rawValue])
    }

    @Test("a server certificate from an untrusted CA fails with .tls")
    func untrustedServer() async throws {
        let certificates = try APNsTestHarness.sharedCertificates()
        let fake = try FakeAPNs(configuration: FakeAPNs.Configuration(
            certificatePath: certificates.untrustedServerCertificate, privateKeyPath: certificates.untrustedServerKey, clientCAPath: nil
        ))
        defer { fake.shutdown() }
        let configuration = APNsTestHarness.clientConfiguration(certificates, url: fake.url)
        let client = try APNSClient(configuration: configuration, logger: Logger(label: "t", level: .critical))
        defer { client.shutdown() }
        let error = await #expect(throws: APNSError.self) {
            try await client.send(APNSRequest(pushToken: PushToken.fixture("ab"), topic: APNsTestHarness.topic))
        }
        #expect(error?.code == .tls)
        #expect(error?.isRetryable == false)
        #expect(fake.pushes.isEmpty)
    }

    @Test("bad configuration is refused at init")
    func badConfiguration() throws {
        let certificates = try APNsTestHarness.sharedCertificates()
        let identity = certificates.identity
        var configuration = APNSConfiguration(clientCertificateDER: [1, 2, 3], clientPrivateKeyDER: identity.privateKeyDER)
        #expect(throws: APNSError.self) { try APNSClient(configuration: configuration, logger: Logger(label: "t")) }
        let strangerKey = try APNsTestHarness.strangerIdentity(certificates).privateKeyDER
        configuration = APNSConfiguration(clientCertificateDER: identity.certificateDER, clientPrivateKeyDER: strangerKey)
        #expect(throws: APNSError.self) { try APNSClient(configuration: configuration, logger: Logger(label: "t")) }
        configuration = APNSConfiguration(clientCertificateDER: identity.certificateDER, clientPrivateKeyDER: identity.privateKeyDER)
        configuration.url = "http://api.push.apple.com"
        #expect(throws: APNSError.self) { try APNSClient(configuration: configuration, logger: Logger(label: "t")) }
    }
}
