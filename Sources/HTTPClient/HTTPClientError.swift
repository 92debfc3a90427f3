/// Why a request got no complete answer. HTTP error statuses are answers, not errors: they come
/// back as an `HTTPResponse`.
///
/// `description` names the host and the failure, never header values or bodies (which carry
/// tokens), nor the URL's query.
public struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// Nobody accepted the connection (nothing listening, or a firewall's reset).
        case connectionRefused
        /// The host name did not resolve.
        case unresolvedHost
        /// The connection broke before the whole answer arrived: reset, closed without an answer,
        /// or closed in the middle of one.
        case connectionDropped
        /// The request's timeout passed first.
        case timedOut
        /// The TLS handshake failed, or the server's certificate was not trusted.
        case tls
        /// The answer's body outgrew the client's limit; the connection was closed.
        case responseTooLarge
        /// The request cannot be sent as given (malformed URL, an unsupported scheme, a bad header).
        case invalidRequest
        /// The connection would have gone to an address outside the request's `pinnedAddresses`.
        case addressNotAllowed
        /// libcurl failed in another way (see the message).
        case other
    }

    public let code: Code
    /// One line: what failed, where, and libcurl's own words.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// True for failures worth trying again later (the far side or the network), false for
    /// requests that can never succeed as given.
    public var isTransient: Bool {
        switch code {
        case .connectionRefused, .unresolvedHost, .connectionDropped, .timedOut, .tls, .other: true
        case .responseTooLarge, .invalidRequest, .addressNotAllowed: false
        }
    }
}
