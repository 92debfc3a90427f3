import GoogleWallet
import HTTPClient

extension Application {
    /// The verifier of Google Wallet's callbacks, for our issuer id, with Google's root keys
    /// fetched from GOOGLE_WALLET_KEYS_URL (trusting GOOGLE_WALLET_CA_FILE besides the system's
    /// CAs); nil while Google Wallet is off.
    static func googleCallbackVerifier(_ google: Configuration.GoogleWallet) -> CallbackVerifier? {
        guard let issuer = google.issuerID else { return nil }
        let client = HTTPClient(configuration: HTTPClientConfiguration(caFile: google.caFile, pooledHandles: 1))
        return CallbackVerifier(recipientID: issuer, rootKeys: RootKeys(url: google.endpoints.callbackKeys, client: client))
    }
}
