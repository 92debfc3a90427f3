/// Where Google's Wallet services answer: the REST API of classes and objects, the OAuth token
/// endpoint, the save link's base, and the keys that sign save and delete callbacks. The defaults
/// are Google's production addresses; tests point every one at a local fake.
public struct GoogleWalletEndpoints: Sendable, Equatable {
    /// Base of `eventTicketClass` and `eventTicketObject` (no trailing slash).
    public var api: String
    /// The OAuth 2.0 token endpoint (service-account JWT bearer grant).
    public var token: String
    /// Base of the "Add to Google Wallet" link: `<save>/<jwt>`.
    public var save: String
    /// Google's root signing keys for callbacks (`ECv2SigningOnly`).
    public var callbackKeys: String

    public static let production = GoogleWalletEndpoints(
        api: "https://walletobjects.googleapis.com/walletobjects/v1",
        token: "https://oauth2.googleapis.com/token",
        save: "https://pay.google.com/gp/v/save",
        callbackKeys: "https://pay.google.com/gp/m/issuer/keys"
    )

    public init(api: String, token: String, save: String, callbackKeys: String) {
        self.api = api
        self.token = token
        self.save = save
        self.callbackKeys = callbackKeys
    }
}
