import Foundation
import GoogleWallet
import PassServerTesting
import Testing

/// The save link and the grant assertion: RS256 JWTs that the real `openssl` verifies with the
/// service account's public key, whose headers and claims are exactly Google's.
@Suite("Google Wallet JWTs", .offCooperativePool, .timeLimit(.minutes(2)))
struct GoogleJWTTests {
    static let endpoints = GoogleWalletEndpoints(
        api: "https://walletobjects.example/walletobjects/v1", token: "https://oauth.example/token", save: "https://pay.example/gp/v/save",
        callbackKeys: "https://pay.example/keys"
    )

    @Test("The save link is <save>/<jwt>; the JWT verifies with openssl and carries only the object ids")
    func saveLink() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "google-jwt")
        let made = try FakeGoogleWallet.writeServiceAccount(in: directory)
        let account = try GoogleServiceAccount.load(file: made.keyFile)
        let issuedAt = Date(timeIntervalSince1970: 1_800_000_000)
        let ids = ["3388000000012345678.t.T-1", "3388000000012345678.t.T-2"]
        let link = try account.saveLink(objectIDs: ids, origins: ["https://tickets.example.org"], endpoints: Self.endpoints, issuedAt: issuedAt)
        let prefix = Self.endpoints.save + "/"
        try #require(link.hasPrefix(prefix))
        let jwt = try DecodedJWT(String(link.dropFirst(prefix.count)))
        #expect(try jwt.verifiesWithOpenSSL(publicKeyFile: made.publicKeyFile, in: directory))
        #expect(try !jwt.verifiesWithOpenSSL(publicKeyFile: made.publicKeyFile, in: directory, input: jwt.signingInput + "x"), "openssl can refuse")
        #expect(Set(jwt.header.keys) == ["alg", "typ", "kid"])
        #expect(jwt.header["alg"] as? String == "RS256")
        #expect(jwt.header["typ"] as? String == "JWT")
        #expect(jwt.header["kid"] as? String == made.keyID)
        #expect(Set(jwt.claims.keys) == ["iss", "aud", "typ", "iat", "origins", "payload"])
        #expect(jwt.claims["iss"] as? String == made.email)
        #expect(jwt.claims["aud"] as? String == "google")
        #expect(jwt.claims["typ"] as? String == "savetowallet")
        #expect((jwt.claims["iat"] as? NSNumber)?.intValue == 1_800_000_000)
        #expect(jwt.claims["origins"] as? [String] == ["https://tickets.example.org"])
        let payload = try #require(jwt.claims["payload"] as? [String: Any])
        #expect(Set(payload.keys) == ["eventTicketObjects"])
        let objects = try #require(payload["eventTicketObjects"] as? [[String: Any]])
        #expect(objects.count == 2)
        #expect(objects.allSatisfy { Set($0.keys) == ["id"] })
        #expect(objects.compactMap { $0["id"] as? String } == ids)
    }

    @Test("A save link needs object ids")
    func saveLinkNeedsIDs() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "google-jwt")
        let account = try GoogleServiceAccount.load(file: try FakeGoogleWallet.writeServiceAccount(in: directory).keyFile)
        #expect(throws: GoogleWalletError.self) { try account.saveLink(objectIDs: [], origins: [], endpoints: Self.endpoints) }
        #expect(throws: GoogleWalletError.self) { try account.saveLink(objectIDs: [""], origins: [], endpoints: Self.endpoints) }
    }

    @Test("The grant assertion verifies with openssl; iss, scope, aud, iat and exp are exact")
    func grantAssertion() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "google-jwt")
        let made = try FakeGoogleWallet.writeServiceAccount(in: directory)
        let account = try GoogleServiceAccount.load(file: made.keyFile)
        let jwt = try DecodedJWT(try account.grantAssertion(tokenURL: Self.endpoints.token, issuedAt: Date(timeIntervalSince1970: 1_800_000_000)))
        #expect(try jwt.verifiesWithOpenSSL(publicKeyFile: made.publicKeyFile, in: directory))
        let other = try FakeGoogleWallet.writeServiceAccount(in: directory, name: "someone-else")
        #expect(try !jwt.verifiesWithOpenSSL(publicKeyFile: other.publicKeyFile, in: directory), "another key does not verify it")
        #expect(jwt.header["kid"] as? String == made.keyID)
        #expect(Set(jwt.claims.keys) == ["iss", "scope", "aud", "iat", "exp"])
        #expect(jwt.claims["iss"] as? String == made.email)
        #expect(jwt.claims["scope"] as? String == "https://www.googleapis.com/auth/wallet_object.issuer")
        #expect(jwt.claims["aud"] as? String == "https://oauth.example/token")
        #expect((jwt.claims["iat"] as? NSNumber)?.intValue == 1_800_000_000)
        #expect((jwt.claims["exp"] as? NSNumber)?.intValue == 1_800_003_600)
    }
}
