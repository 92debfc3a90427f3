/// What a webhook tells: the kinds of change an endpoint subscribes to. The raw values are the
/// `type` of the body sent (docs/webhooks.md).
public enum WebhookEventType: String, Sendable, Equatable, Hashable, CaseIterable, Comparable {
    /// A ticket was issued (one, or each ticket of an import).
    case ticketIssued = "ticket.issued"
    /// A ticket's own data changed: holder, email, seat, external id, extra fields, language, or
    /// its check-in undone.
    case ticketUpdated = "ticket.updated"
    case ticketCancelled = "ticket.cancelled"
    /// A ticket was let in at the door.
    case ticketCheckedIn = "ticket.checked_in"
    /// A ticket went from no phone holding it in Wallet to one (a device registered for it).
    case passAdded = "pass.added"
    /// The last phone holding a ticket in Wallet removed it (unregistered, or its push token died).
    case passRemoved = "pass.removed"
    /// A ticket's email was given up on (the mail server refused it, or it kept failing).
    case emailFailed = "email.failed"
    /// A ticket was saved in Google Wallet (Google's callback; only while Google Wallet is on).
    case googleWalletSaved = "googlewallet.saved"
    /// A ticket was removed from Google Wallet.
    case googleWalletRemoved = "googlewallet.removed"
    /// An event's own data changed (name, venue, times, template, design, language): one webhook
    /// for the event, none for each of its tickets.
    case eventUpdated = "event.updated"
    /// An event was deleted (its tickets were voided with it).
    case eventDeleted = "event.deleted"

    /// The types that exist only while Google Wallet is on.
    public var needsGoogleWallet: Bool { self == .googleWalletSaved || self == .googleWalletRemoved }

    public static func < (a: WebhookEventType, b: WebhookEventType) -> Bool { a.rawValue < b.rawValue }
}
