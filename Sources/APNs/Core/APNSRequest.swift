/// One pass-update push: an empty `{}` background notification to one device for one pass type.
public struct APNSRequest: Sendable, Hashable {
    /// The device's push token (hex), as the device sent it when registering.
    public var pushToken: String
    /// The `apns-topic`: the pass type identifier.
    public var topic: String

    public init(pushToken: String, topic: String) {
        self.pushToken = pushToken
        self.topic = topic
    }
}
