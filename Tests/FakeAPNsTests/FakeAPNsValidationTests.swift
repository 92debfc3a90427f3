@testable import FakeAPNs
import FakeAPNs
import PassServerTesting
import Testing

@Suite("FakeAPNs request checks", .offCooperativePool)
struct FakeAPNsValidationTests {
    let good: [String: String] = [
        "apns-topic": "pass.x", "apns-push-type": "background", "apns-priority": "5", "apns-expiration": "1700000000",
    ]
    let body = Array("{}".utf8)

    @Test("a correct pass-update push passes")
    func valid() {
        #expect(FakeAPNs.validate(method: "POST", path: "/3/device/ab12", headers: good, body: body) == nil)
    }

    @Test("each mistake gets Apple's reason")
    func mistakes() {
        func answer(method: String = "POST", path: String = "/3/device/ab12", change: (inout [String: String]) -> Void = { _ in }, body: [UInt8]? = nil) -> FakeAPNs.Answer? {
            var headers = good
            change(&headers)
            return FakeAPNs.validate(method: method, path: path, headers: headers, body: body ?? self.body)
        }
        #expect(answer(method: "GET") == .error(status: 405, reason: "MethodNotAllowed"))
        #expect(answer(path: "/3/devices/ab") == .error(status: 404, reason: "BadPath"))
        #expect(answer(path: "/3/device/") == .error(status: 400, reason: "MissingDeviceToken"))
        #expect(answer(path: "/3/device/xyz") == .error(status: 400, reason: "BadDeviceToken"))
        #expect(answer(change: { $0["apns-topic"] = nil }) == .error(status: 400, reason: "MissingTopic"))
        #expect(answer(change: { $0["apns-push-type"] = "voip" }) == .error(status: 400, reason: "InvalidPushType"))
        #expect(answer(change: { $0["apns-push-type"] = "Background" }) == .error(status: 400, reason: "InvalidPushType"))
        #expect(answer(change: { $0["apns-priority"] = "10" }) == .error(status: 400, reason: "BadPriority"))
        #expect(answer(change: { $0["apns-priority"] = nil }) == .error(status: 400, reason: "BadPriority"), "absent means 10")
        #expect(answer(change: { $0["apns-priority"] = "7" }) == .error(status: 400, reason: "BadPriority"))
        #expect(answer(change: { $0["apns-expiration"] = "soon" }) == .error(status: 400, reason: "BadExpirationDate"))
        #expect(answer(body: []) == .error(status: 400, reason: "PayloadEmpty"))
        #expect(answer(body: Array("{\"aps\":{}}".utf8)) == .error(status: 400, reason: "UnexpectedPayload"))
    }

    @Test("every push type and priority APNs accepts for a pass topic is accepted",
          arguments: [
              ("background", "5"), ("background", "1"), ("alert", "10"), ("alert", "5"), ("alert", "1"), ("alert", nil),
              (nil, "10"), (nil, "5"), (nil, nil),
          ] as [(String?, String?)])
    func acceptedCombinations(pushType: String?, priority: String?) {
        var headers = good
        headers["apns-push-type"] = pushType
        headers["apns-priority"] = priority
        #expect(FakeAPNs.validate(method: "POST", path: "/3/device/ab12", headers: headers, body: body) == nil)
    }

    @Test("apns-expiration may be left out")
    func expirationOptional() {
        var headers = good
        headers["apns-expiration"] = nil
        #expect(FakeAPNs.validate(method: "POST", path: "/3/device/ab12", headers: headers, body: body) == nil)
    }

    @Test("scripted answers render the JSON APNs sends")
    func renderedAnswers() {
        #expect(FakeAPNs.Answer.unregistered(timestampMilliseconds: 5).settled.body == #"{"reason":"Unregistered","timestamp":5}"#)
        #expect(FakeAPNs.Answer.delayed(seconds: 1, then: .error(status: 429, reason: "TooManyRequests")).settled.status == 429)
        #expect(FakeAPNs.Answer.success.settled.body == nil)
    }
}
