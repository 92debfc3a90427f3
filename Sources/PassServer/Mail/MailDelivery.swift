import Mail

/// What the mail sender reports about one message.
enum MailDelivery: Sendable, Equatable {
    /// The SMTP exchange happened: the server's verdict (or the connection's failure).
    case sent(SMTPOutcome)
    /// The message could not be written (no texts for the template, an address that cannot go
    /// into an envelope, a ticket gone): nothing was sent, and sending again would not help.
    case unwritable(String)
    /// Not sent: its claim ran out while it waited, or the sender is stopping. Tried again at once
    /// (by whoever holds the row then).
    case notSent(String)

    /// What the delivery says about the SMTP server's reachability (`Reachability`): any reply
    /// reached it; no reply while connecting (refused, timed out, TLS handshake failed) did not;
    /// a connection lost later, or a message never sent, says nothing either way.
    var reachedServer: Bool? {
        guard case .sent(let outcome) = self else { return nil }
        guard let failure = outcome.failure else { return true }
        if failure.reply != nil { return true }
        if case .refused = outcome { return nil }
        return failure.stage == .connect ? false : nil
    }
}
