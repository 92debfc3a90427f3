import Certificates

/// What went wrong while loading a template, rendering, validating, signing or zipping a pass.
///
/// `description` names the template file or pass.json key and the problem; it never shows key
/// material. Validation failures list every problem found in `issues`.
public struct PassBundleError: Error, Sendable, CustomStringConvertible {
    /// A stable, machine-readable error kind.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The template directory or one of its files cannot be read.
        public static let templateUnreadable = Code("templateUnreadable")
        /// The template is malformed (bad JSON, missing pass.json or icon.png, reserved file names).
        public static let invalidTemplate = Code("invalidTemplate")
        /// An uploaded archive is unreadable or breaks a limit (size, entry count, an unsafe path, a link).
        public static let invalidArchive = Code("invalidArchive")
        /// The template uses a `{{placeholder}}` the data does not provide.
        public static let unknownPlaceholder = Code("unknownPlaceholder")
        /// The ticket data is unusable (for example an unknown time zone).
        public static let invalidData = Code("invalidData")
        /// The rendered pass.json breaks a rule; see `issues`.
        public static let invalidPass = Code("invalidPass")
        /// The signing identity is unusable (no WWDR intermediate, unreadable key …); see `underlying`.
        public static let certificate = Code("certificate")
        /// OpenSSL failed to produce the signature.
        public static let signingFailed = Code("signingFailed")
        /// libzip failed to produce the archive.
        public static let zipFailed = Code("zipFailed")
    }

    /// One problem with one pass.json key.
    public struct Issue: Error, Sendable, Equatable, CustomStringConvertible {
        /// The key path, e.g. `webServiceURL` or `eventTicket.primaryFields[0].value`.
        public let key: String
        /// What is wrong with it.
        public let problem: String
        public init(key: String, problem: String) {
            self.key = key
            self.problem = problem
        }
        public var description: String { "\(key): \(problem)" }
    }

    public let code: Code
    public let message: String
    /// Validation problems (for `.invalidPass`), one per key.
    public let issues: [Issue]
    /// A lower-level error (for example a `CertificateError`).
    public let underlying: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, issues: [Issue] = [], underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.issues = issues
        self.underlying = underlying
    }

    /// OpenSSL failed while hashing or signing; its reasons are part of the message.
    init(signing error: OpenSSLError) {
        self.init(.signingFailed, error.description, underlying: error)
    }

    /// A validation failure listing every issue.
    static func invalidPass(_ issues: [Issue]) -> PassBundleError {
        PassBundleError(.invalidPass, "pass.json is invalid: " + issues.map(\.description).joined(separator: "; "), issues: issues)
    }

    public var description: String { "\(code): \(message)" }
}
