import Certificates

/// Derives each pass's secrets from `TOKEN_SECRET`, so the database stores only their hashes.
///
/// A pass needs its authentication token in plain text every time it is re-signed, yet the token is
/// a credential: a database leak must not hand out working tokens. Deriving it with HMAC from a
/// secret that lives only in the configuration gives both. The download token uses another label,
/// so one never reveals the other. Every function throws when OpenSSL cannot hash (it never
/// returns an empty or partial value instead).
public struct TokenVault: Sendable {
    private let secret: [UInt8]

    public init(secret: [UInt8]) {
        self.secret = secret
    }

    /// The `authenticationToken` of a pass (43 URL-safe characters).
    public func authenticationToken(passType: PassTypeIdentifier, serial: SerialNumber) throws -> AuthenticationToken {
        let mac = try Digest.sha256().authenticationCode(key: secret, message: Array("auth\u{0}\(passType.rawValue)\u{0}\(serial.rawValue)".utf8))
        // Base64url of 32 bytes is 43 printable characters: always a valid token.
        return AuthenticationToken(Crypto.base64URL(mac)) ?? AuthenticationToken("invalid-token-never-used")!
    }

    /// The secret of a pass's `/download/{token}` link. Each rotation of the link moves the
    /// pass to the next `nonce`; nonce 0 is the first link (derived without a nonce, as links were
    /// before they could be rotated, so those keep working).
    public func downloadToken(passType: PassTypeIdentifier, serial: SerialNumber, nonce: Int64 = 0) throws -> String {
        var message = "download\u{0}\(passType.rawValue)\u{0}\(serial.rawValue)"
        if nonce != 0 { message += "\u{0}\(nonce)" }
        return Crypto.base64URL(try Digest.sha256().authenticationCode(key: secret, message: Array(message.utf8)))
    }

    /// What the database stores for any token.
    public static func hash(_ token: String) throws -> [UInt8] {
        try Digest.sha256().hash(Array(token.utf8))
    }

    /// Checks a presented token against a stored hash in constant time.
    public static func matches(_ presented: String, storedHash: [UInt8]) throws -> Bool {
        ConstantTime.equal(try hash(presented), storedHash)
    }
}
