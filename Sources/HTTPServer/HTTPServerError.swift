/// Why the HTTP server could not start or was misconfigured.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// One or more configuration values are out of range (all are listed in the message).
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The host is not a numeric IPv4/IPv6 address or `localhost`.
        public static let invalidHost = Code("invalidHost")
        /// Another socket is bound to the address and port.
        public static let addressInUse = Code("addressInUse")
        /// Creating, binding or listening on the socket failed for another reason.
        public static let bindFailed = Code("bindFailed")
        /// libmicrohttpd refused to start the daemon.
        public static let startFailed = Code("startFailed")
        /// `start()` was called on a server that was already started or stopped.
        public static let alreadyStarted = Code("alreadyStarted")
    }

    /// What went wrong, for programs.
    public var code: Code
    /// What went wrong, for people (no secrets).
    public var message: String
    /// The underlying system error, if any (a `POSIXError` carrying the errno).
    public var underlying: (any Error & Sendable)?

    public var description: String {
        var text = "HTTPServerError.\(code): \(message)"
        if let underlying { text += " (\(underlying))" }
        return text
    }
}
