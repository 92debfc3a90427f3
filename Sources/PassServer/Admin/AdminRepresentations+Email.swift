import Foundation
import Storage

/// What became of a ticket's email (`emailStatus` of a ticket).
struct EmailStatusBody: Encodable {
    /// `queued`, `sent` or `failed`.
    var state: String
    var queuedAt: String
    /// When the SMTP server last accepted it (kept while a resend is queued).
    var sentAt: String?
    var failedAt: String?
    /// The server's last reply: its acceptance, its refusal, or the temporary failure being retried.
    var reply: String?
    /// How many times the server accepted the ticket's email.
    var sentCount: Int

    /// A ticket's email, or an order's (the same states and fields).
    init(_ email: some EmailRecord) {
        state = email.state.rawValue
        queuedAt = ISODate.format(email.queuedAt)
        sentAt = email.sentAt.map { ISODate.format($0) }
        failedAt = email.failedAt.map { ISODate.format($0) }
        reply = email.reply
        sentCount = email.sentCount
    }
}

/// Tickets' emails by state (`emailStatus` of an event, `emails` of an email job).
struct EmailCountsBody: Encodable {
    var queued: Int
    var sent: Int
    var failed: Int

    init(_ counts: EmailCounts) {
        queued = counts.queued
        sent = counts.sent
        failed = counts.failed
    }
}

/// What the API shows of an email: a ticket's (`TicketEmail`) or an order's (`OrderEmail`).
protocol EmailRecord {
    var state: TicketEmail.State { get }
    var queuedAt: Date { get }
    var sentAt: Date? { get }
    var failedAt: Date? { get }
    var reply: String? { get }
    var sentCount: Int { get }
}

extension TicketEmail: EmailRecord {}
extension OrderEmail: EmailRecord {}
