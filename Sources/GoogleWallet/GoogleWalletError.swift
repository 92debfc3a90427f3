/// Why a service account, a JWT or a token could not be had. `description` never shows the
/// private key, a signed JWT or an access token.
public struct GoogleWalletError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// The key file cannot be read.
        case unreadableKeyFile
        /// The key file is not JSON, or not a service account's key (`type` is not `service_account`).
        case notServiceAccount
        /// The key file lacks `client_email`, `private_key_id` or `private_key`, or the key is not PEM.
        case missingKey
        /// The private key is not an RSA key (RS256 needs one).
        case keyNotRSA
        /// OpenSSL could not sign.
        case signing
        /// The token endpoint's answer could not be understood.
        case invalidTokenResponse
        /// A value given to build a request is not usable (an empty id, a body that is not JSON).
        case invalidArgument
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
