public import Foundation

/// What APNs answered for one push. Any HTTP status is a response; transport failures are `APNSError`s.
public struct APNSResponse: Sendable, Equatable {
    /// The HTTP status: 200 delivered, 4xx/5xx see `reason`.
    public var status: Int
    /// The `apns-id` header APNs assigned to the push, if any.
    public var apnsID: String?
    /// The decoded `reason` from the JSON body on errors.
    public var reason: APNSReason?
    /// For 410: when APNs learned the token stopped being valid (`timestamp`, milliseconds).
    public var timestamp: Date?

    public init(status: Int, apnsID: String? = nil, reason: APNSReason? = nil, timestamp: Date? = nil) {
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
        self.timestamp = timestamp
    }

    /// Builds a response from the status line, the `apns-id` header and the raw body.
    /// A body that is not the expected JSON leaves `reason` and `timestamp` nil (never throws).
    init(status: Int, apnsID: String?, body: [UInt8]) {
        self.init(status: status, apnsID: apnsID)
        guard !body.isEmpty,
              let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        else { return }
        if let text = object["reason"] as? String { reason = APNSReason(rawValue: text) }
        if let millis = object["timestamp"] as? NSNumber {
            timestamp = Date(timeIntervalSince1970: millis.doubleValue / 1000)
        }
    }

    /// True for 200.
    public var isSuccess: Bool { status == 200 }
}
