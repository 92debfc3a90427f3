public import PassIdentifiers
import ByteEncoding
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
        return AuthenticationToken(trusted: Base64URL.encode(mac))
    }

    /// The secret of a pass's `/download/{token}` link. Each rotation of the link moves the
    /// pass to the next `nonce`; nonce 0 is the first link (derived without a nonce, as links were
    /// before they could be rotated, so those keep working).
    public func downloadToken(passType: PassTypeIdentifier, serial: SerialNumber, nonce: Int64 = 0) throws -> String {
        var message = "download\u{0}\(passType.rawValue)\u{0}\(serial.rawValue)"
        if nonce != 0 { message += "\u{0}\(nonce)" }
        return Base64URL.encode(try Digest.sha256().authenticationCode(key: secret, message: Array(message.utf8)))
    }

    /// The secret of an order's page link, `/orders/{token}`, under its own label: it reveals
    /// neither the order's key nor any ticket's tokens (though the page links every ticket's).
    public func orderToken(orderID: String) throws -> String {
        Base64URL.encode(try Digest.sha256().authenticationCode(key: secret, message: Array("order\u{0}\(orderID)".utf8)))
    }

    /// The barcode of a pass: `serial~mac`, where `mac` is the first 12 bytes (16 base64url
    /// characters) of an HMAC under the `barcode` label, and a short check code from the same
    /// HMAC for the text under the barcode. The serial is random, so the code says nothing about
    /// the holder; the separator `~` is never part of a serial, so an old serial-only code is told
    /// apart from a signed one at a glance (`CheckInCode.parse`).
    public func barcode(passType: PassTypeIdentifier, serial: SerialNumber) throws -> (message: String, checkCode: String) {
        let mac = try barcodeMAC(passType: passType, serial: serial)
        let message = serial.rawValue + String(CheckInCode.separator) + Base64URL.encode(Array(mac.prefix(CheckInCode.macBytes)))
        return (message, CheckInCode.checkCode(mac))
    }

    /// Whether `mac` (the part after `~`) is this server's signature of the serial, in constant time.
    public func verifiesBarcode(passType: PassTypeIdentifier, serial: SerialNumber, mac: String) throws -> Bool {
        let expected = Base64URL.encode(Array(try barcodeMAC(passType: passType, serial: serial).prefix(CheckInCode.macBytes)))
        return ConstantTime.equal(Array(expected.utf8), Array(mac.utf8))
    }

    /// The check code printed under a pass's barcode.
    public func checkCode(passType: PassTypeIdentifier, serial: SerialNumber) throws -> String {
        CheckInCode.checkCode(try barcodeMAC(passType: passType, serial: serial))
    }

    private func barcodeMAC(passType: PassTypeIdentifier, serial: SerialNumber) throws -> [UInt8] {
        try Digest.sha256().authenticationCode(key: secret, message: Array("barcode\u{0}\(passType.rawValue)\u{0}\(serial.rawValue)".utf8))
    }

    /// The signing secret of a webhook endpoint: `whsec_` and the base64url of an HMAC of its id
    /// and its secret nonce under the `webhook` label. Nothing that could sign is stored: a new
    /// nonce (rotation) gives a new secret, and the database alone gives none.
    package func webhookSecret(endpointID: String, nonce: String) throws -> String {
        let mac = try Digest.sha256().authenticationCode(key: secret, message: Array("webhook\u{0}\(endpointID)\u{0}\(nonce)".utf8))
        return "whsec_" + Base64URL.encode(mac)
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
