/// The service a device's push token belongs to, and that its pushes go through.
public enum PushService: String, Sendable, CaseIterable {
    /// Apple Wallet: APNs.
    case apns
    /// An Android wallet app speaking Apple's protocol (WalletPasses): its HTTPS push relay.
    case relay
}
