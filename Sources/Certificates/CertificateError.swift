/// What went wrong while loading, checking or creating certificates and keys.
///
/// `description` names the file and the problem but never key material or passwords;
/// `debugDescription` adds the drained OpenSSL error queue.
public struct CertificateError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A stable, machine-readable error kind.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The private key does not belong to the certificate.
        public static let keyMismatch = Code("keyMismatch")
        /// The certificate's `notAfter` is in the past.
        public static let expired = Code("expired")
        /// The certificate's `notBefore` is in the future.
        public static let notYetValid = Code("notYetValid")
        /// The subject has no UID (the pass type identifier).
        public static let missingUID = Code("missingUID")
        /// The subject has no OU (the team identifier).
        public static let missingTeamIdentifier = Code("missingTeamIdentifier")
        /// The WWDR intermediate was not given but is needed.
        public static let wwdrMissing = Code("wwdrMissing")
        /// The WWDR intermediate did not issue the pass certificate (for example G1 instead of G4).
        public static let wwdrMismatch = Code("wwdrMismatch")
        /// A file is missing, unreadable or not a certificate/key in a known format.
        public static let unreadable = Code("unreadable")
        /// The key or `.p12` is encrypted and the password is missing or wrong.
        public static let badPassword = Code("badPassword")
        /// Creating or writing a certificate failed.
        public static let generationFailed = Code("generationFailed")
    }

    /// The error kind.
    public let code: Code
    /// A human-readable explanation naming the file involved.
    public let message: String
    /// The file the error is about, if any.
    public let path: String?
    /// OpenSSL's own error strings at the point of failure (may be empty).
    public let openSSLErrors: [String]
    /// A lower-level error (for example a file system error), if any.
    public let underlying: (any Error & Sendable)?

    /// Creates an error; `openSSLErrors` are OpenSSL's reasons, if OpenSSL failed.
    public init(
        _ code: Code,
        _ message: String,
        path: String? = nil,
        openSSLErrors: [String] = [],
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.openSSLErrors = openSSLErrors
        self.underlying = underlying
    }

    /// An error whose cause is a failed OpenSSL call: its queue becomes `openSSLErrors`.
    package init(_ code: Code, _ message: String, path: String? = nil, openSSL error: OpenSSLError) {
        self.init(code, message, path: path, openSSLErrors: error.queue, underlying: error)
    }

    public var description: String { "\(code): \(message)" }

    public var debugDescription: String {
        var text = description
        if !openSSLErrors.isEmpty { text += " [openssl: \(openSSLErrors.joined(separator: "; "))]" }
        if let underlying { text += " [underlying: \(underlying)]" }
        return text
    }
}
