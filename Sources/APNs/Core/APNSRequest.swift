public import PassIdentifiers

/// One pass-update push: an empty `{}` background notification to one device for one pass type.
/// Both fields were validated where they entered the server, so the client puts them into the
/// request path and the `apns-topic` header as they are.
public struct APNSRequest: Sendable, Hashable {
    /// The device's push token, as the device sent it when registering.
    public var pushToken: PushToken
    /// The `apns-topic`: the pass type identifier.
    public var topic: PassTypeIdentifier

    public init(pushToken: PushToken, topic: PassTypeIdentifier) {
        self.pushToken = pushToken
        self.topic = topic
    }
}
