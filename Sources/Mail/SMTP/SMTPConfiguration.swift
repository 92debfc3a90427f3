import Foundation

/// Where and how to submit mail: parsed from `smtp://user:password@host:port/` (STARTTLS) or
/// `smtps://…` (TLS from the first byte).
///
/// The URL kept (`url`) has no credentials, so it can be logged and shown in errors; the user name
/// and password are kept apart (percent-decoded).
public struct SMTPConfiguration: Sendable, Equatable {
    /// How the connection is protected.
    public enum Security: Sendable, Equatable {
        /// `smtps://`: TLS from the first byte.
        case implicitTLS
        /// `smtp://`: the server must offer STARTTLS; without it nothing is sent.
        case requireStartTLS
        /// `smtp://` with plaintext allowed: STARTTLS when the server offers it, plaintext otherwise.
        case startTLSIfOffered
    }

    /// `scheme://host:port/path`, without credentials.
    public let url: String
    public let host: String
    public let port: Int?
    public let username: String?
    public let password: String?
    public let security: Security
    /// Extra CA certificates (PEM) trusted for the server, besides the system store.
    public var caFile: String?
    /// How long connecting (TCP and TLS) may take.
    public var connectTimeout: Duration = .seconds(15)
    /// How long one message may take, from connecting (if needed) to the server's final reply.
    public var messageTimeout: Duration = .seconds(60)

    /// Parses `raw`. `password` (when given) is the password, and the URL must then name the user
    /// but no password; `allowPlaintext` lets `smtp://` go on without STARTTLS.
    public init(url raw: String, password: String? = nil, allowPlaintext: Bool = false, caFile: String? = nil) throws(MailError) {
        guard let components = URLComponents(string: raw), let scheme = components.scheme?.lowercased() else {
            throw MailError(.invalidConfiguration, "is not a URL (smtp://host:port or smtps://host:port)")
        }
        switch scheme {
        case "smtps": security = .implicitTLS
        case "smtp": security = allowPlaintext ? .startTLSIfOffered : .requireStartTLS
        default: throw MailError(.invalidConfiguration, "must start with smtp:// or smtps://")
        }
        guard let host = components.host, !host.isEmpty else { throw MailError(.invalidConfiguration, "names no host") }
        guard components.query == nil, components.fragment == nil else {
            throw MailError(.invalidConfiguration, "must not have a query or fragment")
        }
        if let port = components.port, !(1...65_535).contains(port) {
            throw MailError(.invalidConfiguration, "port \(port) is outside 1…65535")
        }
        let user = components.percentEncodedUser.map(Self.decoded)
        let urlPassword = components.percentEncodedPassword.map(Self.decoded)
        if password != nil {
            guard urlPassword == nil else { throw MailError(.invalidConfiguration, "holds a password and SMTP_PASSWORD is set too; give it once") }
            guard let user, !user.isEmpty else { throw MailError(.invalidConfiguration, "names no user for SMTP_PASSWORD (smtp://user@host)") }
        }
        self.host = host
        self.port = components.port
        self.username = user.flatMap { $0.isEmpty ? nil : $0 }
        self.password = password ?? urlPassword
        self.caFile = caFile
        let hostPart = host.contains(":") ? "[\(host)]" : host
        url = "\(scheme)://\(hostPart)\(components.port.map { ":\($0)" } ?? "")\(components.percentEncodedPath)"
    }

    private static func decoded(_ text: String) -> String {
        text.removingPercentEncoding ?? text
    }
}
