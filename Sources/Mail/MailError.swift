/// Why a mail setting, address, text or message cannot be used, or libcurl could not be set up.
///
/// `description` never shows passwords: a URL is named without its credentials.
public struct MailError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// `SMTP_URL` or another setting is unusable.
        case invalidConfiguration
        /// An address cannot go into an envelope or a header.
        case invalidAddress
        /// A message text (subject, plain text, HTML) is malformed.
        case invalidText
        /// libcurl refused to start or to take an option.
        case curl
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
