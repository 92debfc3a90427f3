// The Wallet API's event ticket classes and objects over `HTTPClient`.
//
// Threading: every call blocks the calling thread (see `HTTPClient`); any number of threads may
// share one client. Tokens come from `GoogleAccessTokens`, which they share too.

public import Foundation
public import HTTPClient

/// Insert, get, patch and addMessage of `eventTicketClass` and `eventTicketObject` resources,
/// JSON bytes in and out. A 401 drops the token and retries once with a fresh one.
public final class GoogleWalletClient: Sendable {
    /// The two resources the client manages.
    public enum Resource: String, Sendable, CaseIterable {
        case eventTicketClass
        case eventTicketObject
    }

    public let endpoints: GoogleWalletEndpoints
    public let tokens: GoogleAccessTokens
    let http: HTTPClient
    let timeout: Duration

    /// The largest answer body accepted from Google.
    public static let maxResponseBody = 1 << 20

    /// A client calling `endpoints` as `account`. `caFile` adds trusted CAs besides the system's.
    public convenience init(
        account: GoogleServiceAccount, endpoints: GoogleWalletEndpoints, caFile: String? = nil, timeout: Duration = .seconds(30),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        let http = HTTPClient(configuration: HTTPClientConfiguration(caFile: caFile, maxResponseBody: Self.maxResponseBody))
        self.init(account: account, endpoints: endpoints, http: http, timeout: timeout, now: now)
    }

    /// A client sending through `http` (whose body limit bounds the answers).
    public init(
        account: GoogleServiceAccount, endpoints: GoogleWalletEndpoints, http: HTTPClient, timeout: Duration = .seconds(30),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.endpoints = endpoints
        self.http = http
        self.timeout = timeout
        tokens = GoogleAccessTokens(account: account, tokenURL: endpoints.token, http: http, timeout: timeout, now: now)
    }

    /// POST `<api>/<resource>`: creates the resource `body` describes (its `id` included).
    public func insert(_ resource: Resource, body: [UInt8]) -> GoogleWalletAnswer {
        call(.insert(resource, body: body))
    }

    /// GET `<api>/<resource>/<id>`.
    public func get(_ resource: Resource, id: String) -> GoogleWalletAnswer {
        call(.get(resource, id: id))
    }

    /// PATCH `<api>/<resource>/<id>`: changes the fields `body` names (patch semantics).
    public func patch(_ resource: Resource, id: String, body: [UInt8]) -> GoogleWalletAnswer {
        call(.patch(resource, id: id, body: body))
    }

    /// POST `<api>/<resource>/<id>/addMessage`: `body` is `{"message":{…}}`.
    public func addMessage(_ resource: Resource, id: String, body: [UInt8]) -> GoogleWalletAnswer {
        call(.addMessage(resource, id: id, body: body))
    }

    /// One call, alone or in a batch.
    public func call(_ call: GoogleWalletCall) -> GoogleWalletAnswer {
        let (method, path, body) = call.request
        return send(method, endpoints.api + path, body: body)
    }

    /// The save link for objects already inserted, valid on pages of `origins`.
    public func saveLink(objectIDs: [String], origins: [String], issuedAt: Date = Date()) throws(GoogleWalletError) -> String {
        try tokens.account.saveLink(objectIDs: objectIDs, origins: origins, endpoints: endpoints, issuedAt: issuedAt)
    }

    /// Sends one request with a bearer token; a 401 drops the token and tries once more.
    private func send(_ method: String, _ url: String, body: [UInt8]?) -> GoogleWalletAnswer {
        authorized { token in
            var headers: [(name: String, value: String)] = [("Authorization", "Bearer \(token)"), ("Accept", "application/json")]
            if body != nil { headers.append(("Content-Type", "application/json; charset=utf-8")) }
            return HTTPRequest(method: method, url: url, headers: headers, body: body ?? [], timeout: timeout)
        } answer: { response in
            if (200..<300).contains(response.status) { return .success(status: response.status, body: response.body) }
            return .googleError(GoogleAPIError(response: response))
        } failed: { $0 }
    }

    /// Gets a token, sends the request `make` builds with it, and reads the answer with `read`; a
    /// 401 drops the token and tries once more with a fresh one.
    func authorized<Answer>(
        _ make: (String) -> HTTPRequest, answer read: (HTTPResponse) -> Answer, failed: (GoogleWalletAnswer) -> Answer
    ) -> Answer {
        var retried = false
        while true {
            let token: String
            do { token = try tokens.token() } catch {
                switch error {
                case .refused(let refusal): return failed(.googleError(refusal))
                case .transport(let failure): return failed(.transportFailure(failure))
                case .local(let failure): return failed(.credentialFailure(failure))
                }
            }
            let response: HTTPResponse
            do { response = try http.send(make(token)) } catch { return failed(.transportFailure(error)) }
            if response.status == 401, !retried {
                // The token expired or was revoked early: one fresh grant, one more try.
                tokens.invalidate(token)
                retried = true
                continue
            }
            return read(response)
        }
    }
}
