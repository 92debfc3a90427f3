// A Google Cloud service account's JSON key: who signs (client_email), which key (private_key_id),
// and the RSA private key itself. Read once at start-up.

internal import COpenSSL
internal import Certificates
import Foundation

/// A service account that signs save links and token grants with RS256. The private key stays in
/// this value: `description` shows only the email and the key id.
public struct GoogleServiceAccount: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// `client_email`: the JWTs' `iss`.
    public let clientEmail: String
    /// `private_key_id`: the JWT header's `kid`.
    public let privateKeyID: String
    let key: PrivateKey

    /// Reads the JSON key file at `path`.
    public static func load(file path: String) throws(GoogleWalletError) -> GoogleServiceAccount {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GoogleWalletError(.unreadableKeyFile, "cannot read the service account key file \(path)")
        }
        return try GoogleServiceAccount(json: Array(data), source: path)
    }

    /// Parses a JSON key file's contents; `source` names it in errors. `token_uri` is ignored: the
    /// token endpoint is configured (`GoogleWalletEndpoints.token`).
    public init(json: [UInt8], source: String = "the service account key") throws(GoogleWalletError) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any] else {
            throw GoogleWalletError(.notServiceAccount, "\(source) is not a JSON object")
        }
        guard object["type"] as? String == "service_account" else {
            throw GoogleWalletError(.notServiceAccount, "\(source) is not a service account key (its type is not \"service_account\")")
        }
        guard let email = object["client_email"] as? String, !email.isEmpty else {
            throw GoogleWalletError(.missingKey, "\(source) has no client_email")
        }
        guard let keyID = object["private_key_id"] as? String, !keyID.isEmpty else {
            throw GoogleWalletError(.missingKey, "\(source) has no private_key_id")
        }
        guard let pem = object["private_key"] as? String, !pem.isEmpty else {
            throw GoogleWalletError(.missingKey, "\(source) has no private_key")
        }
        clientEmail = email
        privateKeyID = keyID
        key = try Self.parse(pem: pem, source: source)
    }

    public var description: String { "service account \(clientEmail) (key \(privateKeyID))" }
    public var debugDescription: String { description }

    private static func parse(pem: String, source: String) throws(GoogleWalletError) -> PrivateKey {
        guard pem.contains("-----BEGIN") else { throw GoogleWalletError(.missingKey, "the private_key of \(source) is not a PEM key") }
        let bio: MemoryBIO
        do { bio = try MemoryBIO(bytes: Array(pem.utf8)) } catch {
            throw GoogleWalletError(.missingKey, "cannot buffer the private_key of \(source)")
        }
        OpenSSLErrorQueue.clear()
        // No password callback argument: a key file's key is never encrypted, and OpenSSL must not prompt.
        guard let parsed = PEM_read_bio_PrivateKey(bio.pointer, nil, refusePassword, nil) else {
            OpenSSLErrorQueue.clear()
            throw GoogleWalletError(.missingKey, "the private_key of \(source) is not a readable PEM private key")
        }
        let key = PrivateKey(owning: parsed)
        guard EVP_PKEY_is_a(parsed, "RSA") == 1 else {
            throw GoogleWalletError(.keyNotRSA, "the private_key of \(source) is not an RSA key; RS256 needs one")
        }
        return key
    }

    /// The RS256 signature (RSASSA-PKCS1-v1_5 with SHA-256) of `input`.
    func sign(_ input: [UInt8]) throws(GoogleWalletError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_MD_CTX_new() else { throw GoogleWalletError(.signing, "cannot allocate a signing context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else {
            OpenSSLErrorQueue.clear()
            throw GoogleWalletError(.signing, "cannot start an RS256 signature with the key of \(clientEmail)")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, input, input.count) == 1, length > 0 else {
            OpenSSLErrorQueue.clear()
            throw GoogleWalletError(.signing, "cannot size the RS256 signature")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, input, input.count) == 1 else {
            OpenSSLErrorQueue.clear()
            throw GoogleWalletError(.signing, "cannot make the RS256 signature")
        }
        return Array(signature.prefix(length))
    }
}

/// Fails instead of prompting on the terminal for a password (OpenSSL's default callback would).
private let refusePassword: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in -1 }
