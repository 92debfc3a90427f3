@testable import APNs
import Foundation
import PassIdentifiers
import PassServerTesting
import Testing

@Suite("APNs values", .offCooperativePool)
struct APNSValuesTests {
    @Test("reasons decode Apple's spelling and keep unknown ones as text")
    func reasons() {
        #expect(APNSReason(rawValue: "BadDeviceToken") == .badDeviceToken)
        #expect(APNSReason(rawValue: "Unregistered") == .unregistered)
        #expect(APNSReason(rawValue: "BadCertificateEnvironment") == .badCertificateEnvironment)
        #expect(APNSReason(rawValue: "SomethingNew") == .unknown("SomethingNew"))
        #expect(APNSReason.tooManyRequests.rawValue == "TooManyRequests")
    }

    @Test("responses decode reason and 410 timestamp; junk bodies do not crash")
    func responses() {
        let gone = APNSResponse(status: 410, apnsID: "x", body: Array(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8))
        #expect(gone.reason == .unregistered)
        #expect(gone.timestamp == Date(timeIntervalSince1970: 1_700_000_000.123))
        let junk = APNSResponse(status: 500, apnsID: nil, body: Array("<html>".utf8))
        #expect(junk.reason == nil && junk.status == 500)
    }

    @Test("URLs: https only, optional port, IPv6 brackets")
    func endpoints() throws {
        #expect(try APNSEndpoint(url: "https://api.push.apple.com") == APNSEndpoint(host: "api.push.apple.com", port: 443))
        #expect(try APNSEndpoint(url: "https://127.0.0.1:8443/") == APNSEndpoint(host: "127.0.0.1", port: 8443))
        #expect(try APNSEndpoint(url: "https://[::1]:9000") == APNSEndpoint(host: "::1", port: 9000))
        for bad in ["http://api.push.apple.com", "https://", "https://host:0", "https://host:99999", "https://host/path", "ftp://x"] {
            #expect(throws: APNSError.self) { try APNSEndpoint(url: bad) }
        }
    }

    @Test("tokens and topics that cannot be put into a request never become one; the request carries them as they are")
    func validation() {
        for token in ["../x", ""] {
            #expect(PushToken(token) == nil, "\(token)")
        }
        let badTopic = "a\r\nb"
        #expect(PassTypeIdentifier(badTopic) == nil)
        let hex = String(repeating: "abcd", count: 16)
        let topic = "pass.x"
        let request = PushToken(hex).flatMap { token in PassTypeIdentifier(topic).map { APNSRequest(pushToken: token, topic: $0) } }
        #expect(request?.pushToken.rawValue == hex)
        #expect(request?.topic.rawValue == topic)
    }

    @Test("retryable codes")
    func retryable() {
        #expect(APNSError(code: .connectionLost, message: "").isRetryable)
        #expect(APNSError(code: .timeout, message: "").isRetryable)
        #expect(!APNSError(code: .tls, message: "").isRetryable)
        #expect(!APNSError(code: .shutdown, message: "").isRetryable)
    }
}
