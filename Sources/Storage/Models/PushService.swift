public import PassIdentifiers

/// The service a device's push token belongs to, and that its pushes go through.
public enum PushService: String, Sendable, CaseIterable {
    /// Apple Wallet: APNs.
    case apns
    /// An Android wallet app speaking Apple's protocol (WalletPasses): its HTTPS push relay.
    case relay
}

/// A device's push token, of the service it belongs to.
public enum DevicePushToken: Sendable, Equatable {
    case apns(PushToken)
    case relay(RelayPushToken)

    public var service: PushService {
        switch self {
        case .apns: .apns
        case .relay: .relay
        }
    }

    public var rawValue: String {
        switch self {
        case .apns(let token): token.rawValue
        case .relay(let token): token.rawValue
        }
    }
}
