import ByteEncoding
import Certificates
import Foundation

/// A service account made for a test: its JSON key file on disk, and its public key for checking
/// signatures outside the process (`openssl dgst -verify`).
public struct FakeGoogleServiceAccount: Sendable {
    public let email: String
    public let keyID: String
    /// The JSON key file, as Google's console downloads it.
    public let keyFile: String
    /// The public key (SubjectPublicKeyInfo PEM).
    public let publicKeyFile: String
    public let key: FakeGoogleServiceAccountKey
}

extension FakeGoogleWallet {
    /// A fresh RSA-2048 service account whose key file is written into `directory`, registered
    /// with this fake so its grants are honoured.
    public func makeServiceAccount(in directory: String, name: String = "wallet-issuer") throws -> FakeGoogleServiceAccount {
        let account = try Self.writeServiceAccount(in: directory, name: name)
        try register(email: account.email, keyID: account.keyID, publicKeyPEM: account.key.publicKeyPEM)
        return account
    }

    /// A fresh service account's key files in `directory`, registered with no fake.
    public static func writeServiceAccount(in directory: String, name: String = "wallet-issuer") throws -> FakeGoogleServiceAccount {
        let key = try FakeGoogleServiceAccountKey.generate()
        let email = "\(name)@passserver-test.iam.gserviceaccount.com"
        let keyID = Hex.encode(SecureRandom.bytes(20))
        let json: [String: Any] = [
            "type": "service_account", "project_id": "passserver-test", "private_key_id": keyID, "private_key": key.privateKeyPEM,
            "client_email": email, "client_id": "100000000000000000001", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": "https://oauth2.googleapis.com/token",
        ]
        let keyFile = "\(directory)/\(name).json"
        let publicKeyFile = "\(directory)/\(name)-public.pem"
        try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]).write(to: URL(fileURLWithPath: keyFile))
        try Data(key.publicKeyPEM.utf8).write(to: URL(fileURLWithPath: publicKeyFile))
        return FakeGoogleServiceAccount(email: email, keyID: keyID, keyFile: keyFile, publicKeyFile: publicKeyFile, key: key)
    }
}
