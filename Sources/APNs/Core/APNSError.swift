/// A transport failure talking to APNs. An HTTP answer from APNs is never an error: see `APNSResponse`.
public struct APNSError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, coarse enough to decide whether to retry.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// TCP connect failed or the host did not resolve. Retryable.
        public static let connectionFailed = Code("connectionFailed")
        /// The connection dropped while the request was in flight. Retryable.
        public static let connectionLost = Code("connectionLost")
        /// No answer within `requestTimeout`. Retryable.
        public static let timeout = Code("timeout")
        /// TLS failed: untrusted or mismatched server certificate, rejected client certificate, no `h2`.
        public static let tls = Code("tls")
        /// The server broke HTTP/2 rules.
        public static let protocolError = Code("protocolError")
        /// The client was shut down before the request was answered.
        public static let shutdown = Code("shutdown")
        /// The configuration (URL, certificate, key) is unusable.
        public static let invalidConfiguration = Code("invalidConfiguration")
        public var description: String { name }
    }

    public var code: Code
    /// A human message; never contains push tokens or key material.
    public var message: String
    /// The lower-level error, if any.
    public var underlying: (any Error & Sendable)?

    /// Thrown by `send` when the calling task is cancelled (the Swift convention).
    static let cancelled = CancellationError()

    /// Whether sending the same push again later may succeed.
    public var isRetryable: Bool {
        code == .connectionFailed || code == .connectionLost || code == .timeout
    }

    /// Whether APNs could not be reached at all (no TCP connection, or TLS failed), as opposed to
    /// a connection that dropped or a push that went unanswered.
    public var isUnreachable: Bool {
        code == .connectionFailed || code == .tls
    }

    public var description: String { "APNSError.\(code): \(message)" }
}
