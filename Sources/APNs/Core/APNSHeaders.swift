/// The `apns-push-type` values a pass-update push may carry: pass updates go to the pass type
/// identifier as topic, which the topic-bound types (voip, location, complication, …) never match.
public enum APNSPushType: String, Sendable, Equatable, CaseIterable {
    /// Delivered at the device's discretion, within its background budget.
    case background
    /// Counted as a user-visible notification: not held to the background budget.
    case alert
}

/// `apns-priority`. APNs takes 10 when the header is absent.
public enum APNSPriority: Int, Sendable, Equatable, CaseIterable {
    /// Sent at a time that takes the device's power into account (may be grouped and delayed).
    case considerPower = 5
    /// Sent immediately.
    case immediate = 10
}

extension APNSConfiguration {
    /// Why APNs would refuse every push sent with these headers, or nil when it accepts them.
    ///
    /// Apple's rule: a background push must not have priority 10, and an absent `apns-priority`
    /// means 10, so a background push has to say 5 explicitly (APNs answers `400 BadPriority`
    /// otherwise). Alert pushes and pushes without a push type take either priority.
    public var headerProblem: String? {
        Self.headerProblem(pushType: pushType, priority: priority)
    }

    /// `headerProblem` for a push type and priority (nil: the header is left out).
    public static func headerProblem(pushType: APNSPushType?, priority: APNSPriority?) -> String? {
        guard pushType == .background, (priority ?? .immediate) == .immediate else { return nil }
        return "APNs refuses priority 10 for background pushes (400 BadPriority): use priority 5, or push type alert"
    }

    /// The `apns-push-type` and `apns-priority` header fields as sent (absent ones left out).
    var pushHeaders: [(String, String)] {
        var headers: [(String, String)] = []
        if let pushType { headers.append(("apns-push-type", pushType.rawValue)) }
        if let priority { headers.append(("apns-priority", String(priority.rawValue))) }
        return headers
    }
}
