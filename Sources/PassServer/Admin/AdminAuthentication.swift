import Foundation
import HTTPServer
import Storage

/// `Authorization: Bearer <token>` against the hashed, unrevoked admin tokens.
package enum AdminAuthentication {
    static let unauthorized = HTTPError(
        status: 401, code: "unauthorized", message: "A valid admin token is required (Authorization: Bearer <token>).",
        headers: ["WWW-Authenticate": "Bearer"]
    )

    /// Prefix of every admin token, so a leaked one is recognisable by secret scanners.
    static let tokenPrefix = "psa_"

    /// The 403 for a valid token whose role does not permit the route.
    static func forbidden(_ role: AdminRole, needs required: AdminRole) -> HTTPError {
        let needed = required == .admin ? "an admin token" : "a \(required.rawValue) or admin token"
        return HTTPError(
            status: 403, code: "forbidden", message: "This route needs \(needed); this token's role is \(role.rawValue)."
        )
    }

    /// Checks the bearer token (401 when missing, unknown or revoked) and that its role permits a
    /// route needing `required` (403 otherwise). Returns the token.
    @discardableResult
    static func check(_ request: Request, role required: AdminRole, store: any Store) throws -> AdminToken {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else {
            if try isDoorStaff(request, store: store) { throw doorStaffRefused }
            throw unauthorized
        }
        let token = String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        guard token.hasPrefix(tokenPrefix), token.utf8.count <= 128 else { throw unauthorized }
        // The lookup is by SHA-256 of a 256-bit random token: timing reveals nothing usable.
        guard let stored = try store.withSession(.read, { try $0.admin.adminToken(tokenHash: TokenVault.hash(token)) }) else { throw unauthorized }
        guard stored.role.permits(required) else { throw forbidden(stored.role, needs: required) }
        return stored
    }

    /// The 403 for a door-staff phone's dashboard session (`DoorStaff`): it is signed in, for one
    /// event's scanner page only.
    static let doorStaffRefused = HTTPError(
        status: 403, code: "forbidden", message: "This phone is signed in for one event's scanner page only; the admin API needs an admin token."
    )

    /// Whether the request carries the session cookie of a signed-in door-staff phone.
    private static func isDoorStaff(_ request: Request, store: any Store) throws -> Bool {
        for name in [DashboardSessions.cookieName(secure: true), DashboardSessions.cookieName(secure: false)] {
            guard let id = DashboardSessions.cookie(name, in: request), AdminIdentifiers.isPlausible(id, lengths: 20...64) else { continue }
            if try store.withSession(.read, { try $0.scanners.scannerSession(idHash: TokenVault.hash(id), now: Date()) }) != nil { return true }
        }
        return false
    }

    /// A new random admin token (shown once, stored hashed).
    package static func newToken() -> String {
        tokenPrefix + Crypto.randomToken(bytes: 32)
    }
}
