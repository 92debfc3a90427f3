import ByteEncoding
import Certificates
import Foundation
import HTTPServer
import Storage

/// Sign-in sessions of the dashboard: a random session id in an `HttpOnly`, `SameSite=Strict`
/// cookie, stored only as its SHA-256 (`admin_sessions`), tied to the admin token it was opened
/// with. A token holds at most `maxSessionsPerToken` sessions: signing in once more ends its
/// oldest.
///
/// Behind an https `PUBLIC_URL` the cookies are `__Host-` cookies (`__Host-ps_session`): `Secure`,
/// `Path=/` and no `Domain`, so that neither plain http nor a sibling host can set or overwrite
/// them (a browser refuses a `__Host-` cookie that breaks those rules). Over an http `PUBLIC_URL`
/// (`--development` on 127.0.0.1) a browser would refuse them on any address but loopback, so
/// there they are plain `ps_session` cookies scoped to `/admin`, without `Secure`.
///
/// Every form carries the session's CSRF token: an HMAC of a fixed label keyed with the session
/// id, so it is unguessable without the cookie, needs no storage, and dies with the session. It
/// is compared in constant time. The sign-in form, which has no session yet, carries a random
/// value that must equal a short-lived cookie's (a double submit).
struct DashboardSessions: Sendable {
    /// The session cookie's name: `__Host-ps_session` when cookies are `Secure`.
    static func cookieName(secure: Bool) -> String { (secure ? "__Host-" : "") + "ps_session" }
    /// The sign-in form's cookie's name: `__Host-ps_signin` when cookies are `Secure`.
    static func signInCookieName(secure: Bool) -> String { (secure ? "__Host-" : "") + "ps_signin" }
    /// The most sessions one token holds; signing in once more ends the oldest. Enough for an
    /// organizer's team sharing a token across their laptops and phones.
    static let maxSessionsPerToken = 16
    /// The name of every form's CSRF field.
    static let csrfField = "csrf"

    let store: any Store
    /// Seconds a session lasts (`ADMIN_SESSION_TTL`).
    let lifetime: Int
    /// Whether cookies get `Secure` (the public URL is https).
    let secureCookies: Bool
    var now: @Sendable () -> Date = Date.init

    var cookieName: String { Self.cookieName(secure: secureCookies) }
    var signInCookieName: String { Self.signInCookieName(secure: secureCookies) }

    /// Who is signed in: the session, its token's role and the CSRF token its forms carry.
    struct Visitor: Sendable {
        /// The hash of the session cookie's id (the session's key in the store).
        var sessionIDHash: [UInt8]
        var tokenName: String
        var role: AdminRole
        var csrfToken: String
        /// The event a door-staff phone is signed in for (a session opened with a scanner
        /// access's link): its scanner page scans that event's tickets only, and it reaches no
        /// other page. Nil for a token's session.
        var eventID: String? = nil
        /// Whether this visitor may change anything (an admin token); viewers only read.
        var canWrite: Bool { role == .admin }
        /// Whether this is a door-staff phone's session (`eventID` set).
        var isDoorStaff: Bool { eventID != nil }
    }

    /// The answer to a door-staff phone's session anywhere but its scanner page.
    static let doorStaffRefused = HTTPError(
        status: 403, code: "forbidden", message: "This phone is signed in for one event's scanner page only; it cannot open other pages."
    )

    /// The visitor of a request carrying a valid, unexpired session cookie whose token is
    /// active and may read; nil otherwise. A scanner token's session counts only where
    /// `allowingScanner` (the scanner page, its JSON and signing out): it cannot read the rest.
    /// A door-staff phone's session (`DoorStaff`) counts only where `allowingScanner`; elsewhere it
    /// is refused with 403 (`doorStaffRefused`), so that phone learns it may not go there.
    func visitor(_ request: Request, allowingScanner: Bool = false) throws -> Visitor? {
        guard let id = Self.cookie(cookieName, in: request), Self.isPlausible(id) else { return nil }
        let hash = try TokenVault.hash(id)
        let (found, door) = try store.withSession(.read) { session -> (AdminSession?, ScannerSession?) in
            if let found = try session.admin.adminSession(idHash: hash, now: now()) { return (found, nil) }
            return (nil, try session.scanners.scannerSession(idHash: hash, now: now()))
        }
        if let door {
            guard allowingScanner else { throw Self.doorStaffRefused }
            try DoorStaff.noteSeen(door, store: store, now: now())
            return Visitor(
                sessionIDHash: door.idHash, tokenName: door.access.name, role: .scanner, csrfToken: try Self.csrfToken(sessionID: id),
                eventID: door.access.eventID
            )
        }
        guard let session = found, session.token.role.permits(.viewer) || (allowingScanner && session.token.role == .scanner) else { return nil }
        return Visitor(
            sessionIDHash: session.idHash, tokenName: session.token.name, role: session.token.role, csrfToken: try Self.csrfToken(sessionID: id)
        )
    }

    /// Opens a session for a valid admin token (any role: a scanner's session reaches only the
    /// scanner page), ending the token's oldest beyond `maxSessionsPerToken`; returns the `Set-Cookie` value and the token's role, or nil when the token
    /// is unknown or revoked.
    func signIn(token presented: String) throws -> (cookie: String, role: AdminRole)? {
        let token = presented.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.hasPrefix(AdminAuthentication.tokenPrefix), token.utf8.count <= 128,
            let stored = try store.withSession(.read, { try $0.admin.adminToken(tokenHash: TokenVault.hash(token)) })
        else { return nil }
        let id = Crypto.randomToken(bytes: 32)
        let start = now()
        try store.withSession(.write) { session in
            try session.admin.createAdminSession(
                idHash: TokenVault.hash(id), tokenID: stored.id, now: start, expiresAt: start.addingTimeInterval(TimeInterval(lifetime))
            )
            try session.admin.deleteAdminSessions(tokenID: stored.id, keepingNewest: Self.maxSessionsPerToken)
        }
        return (cookie(cookieName, value: id, maxAge: lifetime), stored.role)
    }

    /// Opens a session of a usable scanner access for the phone sending `request`, lasting as long as the
    /// access does (at most `lifetime`); returns the `Set-Cookie` value.
    func signIn(_ access: ScannerAccess, request: Request) throws -> String {
        let id = Crypto.randomToken(bytes: 32)
        let start = now()
        let end = min(access.expiresAt, start.addingTimeInterval(TimeInterval(lifetime)))
        try store.withSession(.write) { session in
            try session.scanners.createScannerSession(
                idHash: TokenVault.hash(id), accessID: access.id, device: DoorStaff.device(request), now: start, expiresAt: end,
                keepingNewest: DoorStaff.maxSessionsPerAccess
            )
        }
        return cookie(cookieName, value: id, maxAge: max(1, Int(end.timeIntervalSince(start).rounded(.up))))
    }

    /// Deletes the request's session (its cookie no longer works anywhere); returns the
    /// `Set-Cookie` value that clears it in the browser.
    func signOut(_ visitor: Visitor) throws -> String {
        _ = try store.withSession(.write) { session in
            visitor.isDoorStaff ? try session.scanners.deleteScannerSession(idHash: visitor.sessionIDHash) : try session.admin.deleteAdminSession(idHash: visitor.sessionIDHash)
        }
        return cookie(cookieName, value: "", maxAge: 0)
    }

    /// 403 unless the form's CSRF field equals the visitor's token.
    func checkCSRF(_ form: FormFields, _ visitor: Visitor) throws {
        try checkCSRF(sent: form[Self.csrfField], visitor)
    }

    /// 403 unless `sent` (a form field, or the `X-CSRF-Token` header of the scanner page's JSON
    /// calls) equals the visitor's token.
    func checkCSRF(sent: String?, _ visitor: Visitor) throws {
        guard let sent, ConstantTime.equal(Array(sent.utf8), Array(visitor.csrfToken.utf8)) else {
            throw Self.csrfRefused
        }
    }

    /// The header the scanner page's JSON calls carry the CSRF token in.
    static let csrfHeader = "X-CSRF-Token"

    static let csrfRefused = HTTPError(
        status: 403, code: "csrf", message: "This form is out of date or was not sent from the dashboard. Reload the page and try again."
    )

    /// A fresh sign-in form value and the `Set-Cookie` carrying it (ten minutes).
    func signInChallenge() -> (value: String, cookie: String) {
        let value = Crypto.randomToken(bytes: 24)
        return (value, cookie(signInCookieName, value: value, maxAge: 600))
    }

    /// Whether the sign-in form's value matches its cookie.
    func signInChallengeMatches(_ form: FormFields, _ request: Request) -> Bool {
        guard let sent = form[Self.csrfField], let expected = Self.cookie(signInCookieName, in: request), Self.isPlausible(expected) else {
            return false
        }
        return ConstantTime.equal(Array(sent.utf8), Array(expected.utf8))
    }

    /// Whether the request carries a sign-in cookie of the right shape (without one no sign-in
    /// form can match: refused before its body is read).
    func hasSignInChallenge(_ request: Request) -> Bool {
        Self.cookie(signInCookieName, in: request).map(Self.isPlausible) ?? false
    }

    /// The sign-in cookie, cleared.
    var clearSignInCookie: String { cookie(signInCookieName, value: "", maxAge: 0) }

    private func cookie(_ name: String, value: String, maxAge: Int) -> String {
        // A `__Host-` cookie must be `Secure` with `Path=/` and no `Domain`.
        "\(name)=\(value); Path=\(secureCookies ? "/" : "/admin"); Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secureCookies ? "; Secure" : "")
    }

    /// The value of cookie `name` in the request's `Cookie` headers.
    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// A session id's shape (base64url, 43 characters for 32 bytes) before any lookup.
    private static func isPlausible(_ id: String) -> Bool {
        AdminIdentifiers.isPlausible(id, lengths: 20...64)
    }

    private static func csrfToken(sessionID: String) throws -> String {
        let code = try Digest.sha256().authenticationCode(key: Array(sessionID.utf8), message: Array("passserver dashboard csrf".utf8))
        return Base64URL.encode(code)
    }
}
