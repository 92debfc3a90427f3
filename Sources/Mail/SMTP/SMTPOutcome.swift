/// The step of an SMTP session a reply (or a failure) belongs to.
public enum SMTPStage: String, Sendable, Equatable {
    /// Connecting, the TLS handshake, or the server's greeting.
    case connect
    /// EHLO/HELO.
    case hello
    case startTLS = "STARTTLS"
    case authentication = "AUTH"
    case mailFrom = "MAIL FROM"
    case recipient = "RCPT TO"
    /// The DATA command and the message itself.
    case data = "DATA"
}

/// Why one message was not accepted: where, what the server replied (nil when it never replied:
/// a connection or TLS failure, a timeout), and a one-line description.
public struct SMTPFailure: Sendable, Equatable, CustomStringConvertible {
    public var stage: SMTPStage
    public var reply: SMTPReply?
    /// libcurl's account when the server did not reply.
    public var detail: String

    public init(stage: SMTPStage, reply: SMTPReply?, detail: String) {
        self.stage = stage
        self.reply = reply
        self.detail = detail
    }

    /// The server's reply as it wrote it (`550 5.1.1 …`), or what went wrong without one.
    public var description: String {
        reply.map(\.description) ?? String(detail.prefix(500))
    }
}

/// What became of one message.
public enum SMTPOutcome: Sendable, Equatable {
    /// The server took the message (its final 2xx reply).
    case accepted(SMTPReply)
    /// Try again later: a 4xx reply, or no reply at all (connection refused or lost, timeout,
    /// TLS handshake failed on the way).
    case transient(SMTPFailure)
    /// The server refused this message for good (5xx to its recipient or content): sending it
    /// again would get the same answer.
    case rejected(SMTPFailure)
    /// The server refused us, not this message: our credentials (AUTH), our sender address, TLS
    /// that the configuration requires and the server does not offer, or a certificate we do not
    /// trust. Every message would get the same answer until the configuration changes.
    case refused(SMTPFailure)

    /// The failure, for anything but `accepted`.
    public var failure: SMTPFailure? {
        switch self {
        case .accepted: nil
        case .transient(let failure), .rejected(let failure), .refused(let failure): failure
        }
    }
}
