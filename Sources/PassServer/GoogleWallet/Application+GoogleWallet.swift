import Foundation
import GoogleWallet

extension Application {
    /// The verifier of Google Wallet's callbacks, for our issuer id, with Google's root keys
    /// fetched from GOOGLE_WALLET_KEYS_URL; nil while Google Wallet is off.
    static func googleCallbackVerifier(_ google: Configuration.GoogleWallet) -> CallbackVerifier? {
        guard let issuer = google.issuerID else { return nil }
        let url = google.endpoints.callbackKeys
        return CallbackVerifier(recipientID: issuer, rootKeys: RootKeys {
            try Data(contentsOf: URL(string: url) ?? URL(fileURLWithPath: "/nonexistent")).map { $0 }
        })
    }
}
