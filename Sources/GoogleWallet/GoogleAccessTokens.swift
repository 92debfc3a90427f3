// OAuth 2.0 access tokens for the Wallet API, by the service-account JWT bearer grant (RFC 7523).
//
// Threading: `token()` blocks the calling thread while it asks the token endpoint (call it from a
// thread of your own, as for `HTTPClient`). The cached token sits behind a `Mutex`; refreshes are
// serialised by a second `Mutex` held for the whole grant, so callers that find the token stale at
// the same time share one grant: the first asks, the others wait on the lock and then find the
// fresh token.

public import Foundation
public import HTTPClient
import Synchronization

/// Caches one access token until 60 seconds before it expires; `invalidate` drops it (after a 401).
public final class GoogleAccessTokens: Sendable {
    public let account: GoogleServiceAccount
    public let tokenURL: String
    private let http: HTTPClient
    private let timeout: Duration
    private let now: @Sendable () -> Date
    private let cached = Mutex<Cached?>(nil)
    /// Held while one grant is under way; counts the grants made.
    private let refreshing = Mutex(0)

    private struct Cached {
        var token: String
        var refreshAfter: Date
    }

    /// The margin before `expires_in` at which the token is refreshed.
    public static let refreshMargin: TimeInterval = 60

    public init(account: GoogleServiceAccount, tokenURL: String, http: HTTPClient, timeout: Duration = .seconds(30), now: @escaping @Sendable () -> Date = Date.init) {
        self.account = account
        self.tokenURL = tokenURL
        self.http = http
        self.timeout = timeout
        self.now = now
    }

    /// How a token could not be had.
    public enum Failure: Error, Sendable {
        /// The endpoint answered with an OAuth error (`invalid_grant` …).
        case refused(GoogleAPIError)
        case transport(HTTPClientError)
        /// The assertion could not be signed, or the answer could not be understood.
        case local(GoogleWalletError)
    }

    /// A valid access token: the cached one, or a fresh one from the token endpoint.
    public func token() throws(Failure) -> String {
        if let token = current() { return token }
        return try refreshing.withLock { (grants: inout Int) throws(Failure) -> String in
            // Another caller may have refreshed while this one waited for the lock.
            if let token = current() { return token }
            grants += 1
            let fresh = try grant()
            cached.withLock { $0 = fresh }
            return fresh.token
        }
    }

    /// Forgets the cached token (the API answered 401 to it). With `token`, only if that token is
    /// still the cached one, so several callers hit by the same expiry cause one new grant.
    public func invalidate(_ token: String? = nil) {
        cached.withLock { cached in
            if token == nil || cached?.token == token { cached = nil }
        }
    }

    /// The cached token, valid or not; nil when there is none.
    var cachedToken: String? { cached.withLock { $0?.token } }

    /// Grants asked for so far (for tests and metrics).
    public var grants: Int { refreshing.withLock { $0 } }

    private func current() -> String? {
        let time = now()
        return cached.withLock { cached in
            guard let cached, cached.refreshAfter > time else { return nil }
            return cached.token
        }
    }

    private func grant() throws(Failure) -> Cached {
        let issuedAt = now()
        let assertion: String
        do { assertion = try account.grantAssertion(tokenURL: tokenURL, issuedAt: issuedAt) } catch { throw .local(error) }
        let form = "grant_type=\(Self.formEncode("urn:ietf:params:oauth:grant-type:jwt-bearer"))&assertion=\(Self.formEncode(assertion))"
        let request = HTTPRequest(
            method: "POST", url: tokenURL, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: Array(form.utf8), timeout: timeout
        )
        let response: HTTPResponse
        do { response = try http.send(request) } catch { throw .transport(error) }
        guard response.status == 200 else { throw .refused(GoogleAPIError(oauthResponse: response)) }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any],
            let token = object["access_token"] as? String, !token.isEmpty,
            let expiresIn = (object["expires_in"] as? NSNumber)?.doubleValue, expiresIn > 0
        else {
            throw .local(GoogleWalletError(.invalidTokenResponse, "the token endpoint's answer has no access_token and expires_in"))
        }
        return Cached(token: token, refreshAfter: issuedAt.addingTimeInterval(expiresIn - Self.refreshMargin))
    }

    /// `application/x-www-form-urlencoded` value: everything but unreserved characters percent-encoded.
    static func formEncode(_ text: String) -> String { PathEncoding.segment(text) }
}
