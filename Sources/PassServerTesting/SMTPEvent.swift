import Foundation

/// One thing the test SMTP server did: accepted a message, or refused a recipient or message.
public struct SMTPEvent: Sendable, Decodable {
    /// `message` or `refused`.
    public let kind: String
    /// Unix time when it happened, as the server's clock saw it.
    public let at: Double

    // A message:
    public let mailFrom: String?
    public let rcptTos: [String]?
    /// The message as received, base64.
    public let data: String?
    /// Whether the session was encrypted (STARTTLS or TLS from the first byte).
    public let tls: Bool?
    /// The user that authenticated, if any.
    public let user: String?
    /// Python's reading of the message (`email.policy.default`).
    public let parsed: Parsed?

    // A refusal:
    public let stage: String?
    public let address: String?
    public let reply: String?

    public struct Parsed: Sendable, Decodable {
        /// Every header as received (name, raw value with any folding).
        public let headers: [[String]]
        /// Each header's value decoded (RFC 2047 words turned back into text).
        public let decoded: [String: String]
        public let contentType: String
        public let parts: [Part]
        /// Python's complaints about the message's structure (none for a well-formed one).
        public let defects: [String]

        public struct Part: Sendable, Decodable {
            public let type: String
            public let charset: String?
            public let text: String
        }

        /// The raw values of every header named `name` (case-insensitive).
        public func raw(_ name: String) -> [String] {
            headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
        }

        /// The text of the first part of `type` (`text/plain`, `text/html`).
        public func part(_ type: String) -> String? {
            parts.first { $0.type == type }?.text
        }
    }

    /// The message bytes as received.
    public var bytes: [UInt8] {
        data.flatMap { Data(base64Encoded: $0) }.map(Array.init) ?? []
    }
}
