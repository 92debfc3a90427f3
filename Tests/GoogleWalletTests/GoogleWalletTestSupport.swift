import ByteEncoding
import Foundation
import GoogleWallet
import PassServerTesting
import Synchronization
import Testing

extension FakeGoogleWallet {
    /// The fake's addresses as the client takes them.
    var walletEndpoints: GoogleWalletEndpoints {
        let fake = endpoints
        return GoogleWalletEndpoints(api: fake.api, token: fake.token, save: fake.save, callbackKeys: fake.callbackKeys)
    }
}

/// A clock the test moves forward by hand.
final class TestClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)
    func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }
    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }
}

/// A JWT split and decoded.
struct DecodedJWT {
    let header: [String: Any]
    let claims: [String: Any]
    let signingInput: String
    let signature: [UInt8]

    init(_ jwt: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3, "a JWT has three parts", sourceLocation: sourceLocation)
        let header = try #require(Base64URL.decode(parts[0]), sourceLocation: sourceLocation)
        let claims = try #require(Base64URL.decode(parts[1]), sourceLocation: sourceLocation)
        self.header = try #require(try JSONSerialization.jsonObject(with: Data(header)) as? [String: Any], sourceLocation: sourceLocation)
        self.claims = try #require(try JSONSerialization.jsonObject(with: Data(claims)) as? [String: Any], sourceLocation: sourceLocation)
        signingInput = "\(parts[0]).\(parts[1])"
        signature = try #require(Base64URL.decode(parts[2]), sourceLocation: sourceLocation)
    }

    /// Whether `openssl dgst -sha256 -verify` accepts the signature with the public key in `publicKeyFile`.
    func verifiesWithOpenSSL(publicKeyFile: String, in directory: String, input: String? = nil) throws -> Bool {
        let name = UUID().uuidString
        let inputFile = "\(directory)/\(name).input"
        let signatureFile = "\(directory)/\(name).sig"
        try Data((input ?? signingInput).utf8).write(to: URL(fileURLWithPath: inputFile))
        try Data(signature).write(to: URL(fileURLWithPath: signatureFile))
        let result = try run("openssl", ["dgst", "-sha256", "-verify", publicKeyFile, "-signature", signatureFile, inputFile])
        return result.status == 0 && result.output.contains("Verified OK")
    }
}

/// JSON bytes of a literal.
func jsonBytes(_ object: [String: Any]) throws -> [UInt8] {
    Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
}

/// The JSON object of an answer's body.
func object(_ bytes: [UInt8]) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
}
