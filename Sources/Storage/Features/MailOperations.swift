/// The mail outbox and the ticket emails' states. Reached as `session.mail`.
public struct MailOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// The mail outbox and the ticket emails' states.
    public var mail: MailOperations { MailOperations(session: self) }
}
