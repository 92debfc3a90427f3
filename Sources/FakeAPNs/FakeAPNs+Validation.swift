import PassIdentifiers

extension FakeAPNs {
    /// Push types APNs knows. Those bound to a topic of their own (`voip`, `location`, …) need a
    /// topic suffix a pass type identifier never has, so only `alert` and `background` (or no push
    /// type at all) fit a pass-update push.
    static let pushTypesForPassTopics: Set<String> = ["alert", "background"]

    /// Checks a request the way APNs would for a pass-update push; returns the error answer, or nil if valid.
    static func validate(method: String, path: String, headers: [String: String], body: [UInt8]) -> Answer? {
        guard method == "POST" else { return .error(status: 405, reason: "MethodNotAllowed") }
        let prefix = "/3/device/"
        guard path.hasPrefix(prefix) else { return .error(status: 404, reason: "BadPath") }
        let token = path.dropFirst(prefix.count)
        guard !token.isEmpty else { return .error(status: 400, reason: "MissingDeviceToken") }
        guard token.utf8.allSatisfy(IdentifierBytes.isHexDigit) else { return .error(status: 400, reason: "BadDeviceToken") }
        guard let topic = headers["apns-topic"], !topic.isEmpty else { return .error(status: 400, reason: "MissingTopic") }
        if let answer = validatePushTypeAndPriority(headers) { return answer }
        // Absent: APNs stores the push and tries once; present: a UNIX time in seconds.
        if let expiration = headers["apns-expiration"], Int64(expiration) == nil {
            return .error(status: 400, reason: "BadExpirationDate")
        }
        guard !body.isEmpty else { return .error(status: 400, reason: "PayloadEmpty") }
        // Real APNs takes any JSON; a pass update must be exactly `{}`, so the fake is stricter.
        guard body == Array("{}".utf8) else { return .error(status: 400, reason: "UnexpectedPayload") }
        return nil
    }

    /// APNs's rules for `apns-push-type` and `apns-priority`: the push type may be absent; the
    /// priority is 10, 5 or 1 and means 10 when absent; a background push with priority 10 is refused.
    static func validatePushTypeAndPriority(_ headers: [String: String]) -> Answer? {
        let pushType = headers["apns-push-type"]
        if let pushType, !pushTypesForPassTopics.contains(pushType) {
            return .error(status: 400, reason: "InvalidPushType")
        }
        let priority = headers["apns-priority"] ?? "10"
        guard ["10", "5", "1"].contains(priority) else { return .error(status: 400, reason: "BadPriority") }
        if pushType == "background" && priority == "10" { return .error(status: 400, reason: "BadPriority") }
        return nil
    }

    /// The token part of a `/3/device/<token>` path, or "".
    static func token(fromPath path: String) -> String {
        let prefix = "/3/device/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : ""
    }
}
