import Foundation
public import HTTPClient

/// Google's account of a refused call, from its error body
/// `{"error":{"code":409,"message":"…","status":"ALREADY_EXISTS","errors":[{"reason":"…"}]}}`, or
/// from the token endpoint's `{"error":"invalid_grant","error_description":"…"}`.
public struct GoogleAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// `error.status` (`ALREADY_EXISTS`, `NOT_FOUND`, `UNAUTHENTICATED` …), or the OAuth `error`
    /// code (`invalid_grant`); empty when the body said neither.
    public var code: String
    /// `error.message` (or `error_description`), else the start of the body.
    public var message: String
    /// The first `error.errors[].reason`, when present.
    public var reason: String?

    public init(status: Int, code: String, message: String, reason: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.reason = reason
    }

    /// Reads Google's error body; a body of another shape keeps its first 200 characters as the message.
    public init(response: HTTPResponse) {
        status = response.status
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        code = error?["status"] as? String ?? ""
        message = error?["message"] as? String ?? String((response.bodyText ?? "").prefix(200))
        reason = ((error?["errors"] as? [Any])?.first as? [String: Any])?["reason"] as? String
    }

    /// Reads an OAuth 2.0 error answer (RFC 6749 §5.2).
    init(oauthResponse response: HTTPResponse) {
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        if let code = object?["error"] as? String {
            self.init(status: response.status, code: code, message: object?["error_description"] as? String ?? "")
        } else {
            self.init(response: response)
        }
    }

    public var description: String {
        let named = code.isEmpty ? "HTTP \(status)" : "HTTP \(status) \(code)"
        return reason.map { "\(named) (\($0)): \(message)" } ?? "\(named): \(message)"
    }
}

/// What became of one call to the Wallet API.
public enum GoogleWalletAnswer: Sendable {
    /// A 2xx status and the resource (or other answer) Google sent, as JSON bytes.
    case success(status: Int, body: [UInt8])
    /// Google refused: its status, `error.status`, message and reason. For a token that could not
    /// be granted, the token endpoint's OAuth error.
    case googleError(GoogleAPIError)
    /// No complete answer: refused, dropped, timed out, TLS failed.
    case transportFailure(HTTPClientError)
    /// Nothing was sent: the grant's assertion could not be signed, or the token endpoint's answer
    /// could not be understood.
    case credentialFailure(GoogleWalletError)

    /// The HTTP status of an answer Google sent; nil without one.
    public var status: Int? {
        switch self {
        case .success(let status, _): status
        case .googleError(let error): error.status
        case .transportFailure, .credentialFailure: nil
        }
    }

    /// Worth trying again later: 408, 429 and 5xx answers, and transport failures that may pass.
    public var isRetryable: Bool {
        switch self {
        case .success, .credentialFailure: false
        case .googleError(let error): error.status == 408 || error.status == 429 || error.status >= 500
        case .transportFailure(let error): error.isTransient
        }
    }
}
