// RS256 JWTs signed with the service account's key: the "Add to Google Wallet" save link and the
// assertion of the OAuth 2.0 JWT bearer grant.

internal import ByteEncoding
public import Foundation

extension GoogleServiceAccount {
    /// A compact JWS: `base64url(header).base64url(claims).base64url(RS256 signature)`, with the
    /// header `{"alg":"RS256","typ":"JWT","kid":<private_key_id>}`.
    public func signJWT(claims: [String: any Sendable]) throws(GoogleWalletError) -> String {
        let header: [String: any Sendable] = ["alg": "RS256", "typ": "JWT", "kid": privateKeyID]
        let signingInput = "\(Base64URL.encode(try Self.json(header))).\(Base64URL.encode(try Self.json(claims)))"
        let signature = try sign(Array(signingInput.utf8))
        return "\(signingInput).\(Base64URL.encode(signature))"
    }

    /// The claims of a save link for `objectIDs` (already inserted through the REST API: the link
    /// carries only their ids, nothing about the attendee), valid for pages on `origins`.
    public func saveLinkClaims(objectIDs: [String], origins: [String], issuedAt: Date) -> [String: any Sendable] {
        let objects: [[String: any Sendable]] = objectIDs.map { ["id": $0] }
        return [
            "iss": clientEmail, "aud": "google", "typ": "savetowallet", "iat": Int(issuedAt.timeIntervalSince1970),
            "origins": origins, "payload": ["eventTicketObjects": objects] as [String: any Sendable],
        ]
    }

    /// The "Add to Google Wallet" link: `<save>/<jwt>`.
    public func saveLink(
        objectIDs: [String], origins: [String], endpoints: GoogleWalletEndpoints, issuedAt: Date = Date()
    ) throws(GoogleWalletError) -> String {
        guard !objectIDs.isEmpty, objectIDs.allSatisfy({ !$0.isEmpty }) else {
            throw GoogleWalletError(.invalidArgument, "a save link needs at least one object id")
        }
        let jwt = try signJWT(claims: saveLinkClaims(objectIDs: objectIDs, origins: origins, issuedAt: issuedAt))
        return "\(endpoints.save)/\(jwt)"
    }

    /// The scope of the Wallet API's issuer calls.
    public static let walletScope = "https://www.googleapis.com/auth/wallet_object.issuer"

    /// The assertion of a JWT bearer grant at `tokenURL`, valid for an hour from `issuedAt`.
    public func grantAssertion(tokenURL: String, issuedAt: Date) throws(GoogleWalletError) -> String {
        let iat = Int(issuedAt.timeIntervalSince1970)
        return try signJWT(claims: ["iss": clientEmail, "scope": Self.walletScope, "aud": tokenURL, "iat": iat, "exp": iat + 3600])
    }

    static func json(_ value: [String: any Sendable]) throws(GoogleWalletError) -> [UInt8] {
        do {
            return Array(try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]))
        } catch {
            throw GoogleWalletError(.invalidArgument, "the JWT's claims cannot be written as JSON")
        }
    }
}
