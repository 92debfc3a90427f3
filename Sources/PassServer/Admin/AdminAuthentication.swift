import Foundation
import HTTPServer
import Storage

/// `Authorization: Bearer <token>` against the hashed, unrevoked admin tokens.
enum AdminAuthentication {
    static let unauthorized = HTTPError(
        status: 401, code: "unauthorized", message: "A valid admin token is required (Authorization: Bearer <token>).",
        headers: ["WWW-Authenticate": "Bearer"]
    )

    /// Prefix of every admin token, so a leaked one is recognisable by secret scanners.
    static let tokenPrefix = "psa_"

    static func check(_ request: Request, store: any Store) throws {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else { throw unauthorized }
        let token = String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        guard token.hasPrefix(tokenPrefix), token.utf8.count <= 128 else { throw unauthorized }
        // The lookup is by SHA-256 of a 256-bit random token: timing reveals nothing usable.
        guard try store.adminToken(tokenHash: TokenVault.hash(token)) != nil else { throw unauthorized }
    }

    /// A new random admin token (shown once, stored hashed).
    static func newToken() -> String {
        tokenPrefix + Crypto.randomToken(bytes: 32)
    }
}
