import Foundation
import Storage

extension MetricsController {
    /// Ticket emails: whether email is on, what this process's sends came to, whether sending is
    /// paused, and the mail outbox (read on every scrape, like the push outbox).
    func emails(_ statistics: OutboxStatistics?, _ text: inout MetricsText) {
        text.gauge("passserver_mail_enabled", "1 when an SMTP server is configured (SMTP_URL)", [("", mail == nil ? 0 : 1)])
        let counts = statistics ?? OutboxStatistics()
        text.counter("passserver_emails_total", "Ticket emails answered or given up on by this process, by outcome", [
            ("outcome=\"sent\"", counts.sent), ("outcome=\"retried\"", counts.retried), ("outcome=\"failed\"", counts.failed),
            ("outcome=\"halted\"", counts.halted), ("outcome=\"deferred\"", counts.deferred),
        ])
        text.counter("passserver_emails_failed_total",
                     "Ticket emails this process gave up on: rejected (5xx), gave_up (retried past the retry age), unwritable (no texts, bad address)",
                     Self.byReason(counts.failedByReason, always: ["rejected", "gave_up", "unwritable"]))
        text.gauge("passserver_mail_halted", "1 while the SMTP server refuses us (credentials, sender, TLS) and email is paused",
                   [("", mail?.isHalted == true ? 1 : 0)])
        guard let outbox = try? store.withSession(.read, { try $0.mail.mailOutboxCounts() }) else { return }
        text.gauge("passserver_mail_outbox", "Mail outbox rows by state", [("state=\"pending\"", outbox.pending), ("state=\"failed\"", outbox.failed)])
        let age = outbox.oldestPending.map { max(0, now().timeIntervalSince($0)) } ?? 0
        text.gauge("passserver_mail_oldest_pending_age_seconds", "Age of the oldest queued email since it was first queued; 0 when none is", [("", age)])
    }
}
