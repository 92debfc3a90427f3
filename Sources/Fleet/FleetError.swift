/// Everything that can go wrong in the phone fleet: a request that failed on the wire, an answer the
/// fleet did not expect, a pass that does not check out, or an unusable configuration.
public struct FleetError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; the transport codes are the ones a retrying phone counts by kind.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// TCP connect failed (nothing listens on the port). Retryable.
        public static let connectionRefused = Code("connectionRefused")
        /// The peer reset the connection. Retryable.
        public static let connectionReset = Code("connectionReset")
        /// The peer closed the connection before the response was complete. Retryable.
        public static let connectionClosed = Code("connectionClosed")
        /// No complete answer within the request timeout. Retryable.
        public static let timeout = Code("timeout")
        /// The bytes received are not HTTP/1.1 this client understands.
        public static let protocolError = Code("protocolError")
        /// The server answered, but not with what this step needs (status or body).
        public static let unexpectedResponse = Code("unexpectedResponse")
        /// A `.pkpass` that cannot be read, or whose manifest or signature does not verify.
        public static let invalidPass = Code("invalidPass")
        /// The fleet's settings cannot work (sizes, files, ports).
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The fleet was shut down before the operation finished.
        public static let shutdown = Code("shutdown")
        public var description: String { name }
    }

    public var code: Code
    /// A human message; never contains authentication tokens.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Transport failures: the request may succeed if sent again later.
    public var isTransport: Bool {
        code == .connectionRefused || code == .connectionReset || code == .connectionClosed || code == .timeout
    }

    public var description: String { "FleetError.\(code): \(message)" }
}
