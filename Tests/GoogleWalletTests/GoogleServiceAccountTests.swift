import Foundation
import GoogleWallet
import PassServerTesting
import Testing

/// Reading a service account's JSON key file: the one good shape, and a clear typed error for
/// every other, none of which shows the key.
@Suite("Google service account key files", .offCooperativePool, .timeLimit(.minutes(2)))
struct GoogleServiceAccountTests {
    @Test("A console-style key file loads: email and key id, and its description holds no key")
    func loads() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "google-account")
        let made = try FakeGoogleWallet.writeServiceAccount(in: directory)
        let account = try GoogleServiceAccount.load(file: made.keyFile)
        #expect(account.clientEmail == made.email)
        #expect(account.privateKeyID == made.keyID)
        for text in [account.description, account.debugDescription, String(describing: account), String(reflecting: account)] {
            #expect(!text.contains("PRIVATE KEY"))
            #expect(!text.contains(made.key.privateKeyPEM.split(separator: "\n")[1]))
        }
    }

    static func error(json: [String: Any]) throws -> GoogleWalletError? {
        let bytes = try jsonBytes(json)
        do {
            _ = try GoogleServiceAccount(json: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("Each way a key file can be wrong is its own error, and no error shows the key")
    func errors() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "google-account")
        let made = try FakeGoogleWallet.writeServiceAccount(in: directory)
        let good: [String: Any] = ["type": "service_account", "client_email": made.email, "private_key_id": made.keyID, "private_key": made.key.privateKeyPEM]
        #expect(try Self.error(json: good) == nil, "the good shape loads, so each failure below is the change's doing")
        let ecKey = try FakeGoogleServiceAccountKey.ellipticCurvePrivateKeyPEM()
        let cases: [(String, [String: Any], GoogleWalletError.Code)] = [
            ("authorized user", good.merging(["type": "authorized_user"]) { $1 }, .notServiceAccount),
            ("no type", good.filter { $0.key != "type" }, .notServiceAccount),
            ("no email", good.filter { $0.key != "client_email" }, .missingKey),
            ("no key id", good.filter { $0.key != "private_key_id" }, .missingKey),
            ("no key", good.filter { $0.key != "private_key" }, .missingKey),
            ("key not PEM", good.merging(["private_key": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"]) { $1 }, .missingKey),
            ("broken PEM", good.merging(["private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"]) { $1 }, .missingKey),
            ("EC key", good.merging(["private_key": ecKey]) { $1 }, .keyNotRSA),
        ]
        for (name, json, code) in cases {
            let error = try Self.error(json: json)
            #expect(error?.code == code, "\(name)")
            #expect(error?.message.contains("BEGIN") == false, "\(name)")
            #expect(error?.message.contains(made.key.privateKeyPEM.split(separator: "\n")[1]) == false, "\(name)")
        }
        do {
            _ = try GoogleServiceAccount(json: Array("[1, 2]".utf8))
            Issue.record("a JSON array is no key file")
        } catch {
            #expect(error.code == .notServiceAccount)
        }
        do {
            _ = try GoogleServiceAccount.load(file: "\(directory)/absent.json")
            Issue.record("an absent file cannot load")
        } catch {
            #expect(error.code == .unreadableKeyFile)
            #expect(error.message.contains("absent.json"))
        }
    }
}
