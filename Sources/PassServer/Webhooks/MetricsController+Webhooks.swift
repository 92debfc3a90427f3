import Foundation
import Storage

extension MetricsController {
    /// Webhooks: what this process's deliveries came to, the outbox by state and the endpoints by
    /// whether they are enabled (read on every scrape, like the other outboxes).
    func webhookDeliveries(_ statistics: OutboxStatistics, _ text: inout MetricsText) {
        text.counter("passserver_webhook_deliveries_total",
                     "Webhook deliveries answered or given up on by this process, by outcome (delivered: 2xx; retried: another status or no answer; deferred: its endpoint was just unreachable; blocked: a target address not allowed)",
                     WebhookChannel.outcomes.map { ("outcome=\"\($0.rawValue)\"", statistics[$0]) })
        guard let counts = try? store.withSession(.read, { try $0.webhooks.webhookCounts() }) else { return }
        text.gauge("passserver_webhook_outbox", "Webhook deliveries by state: pending (waiting or backing off), failed (given up on), held (their endpoint is disabled)", [
            ("state=\"pending\"", counts.pending), ("state=\"failed\"", counts.failed), ("state=\"held\"", counts.held),
        ])
        text.gauge("passserver_webhook_endpoints", "Webhook endpoints by state (disabled: by an admin, or after failing for WEBHOOK_DISABLE_AFTER)", [
            ("state=\"enabled\"", counts.enabledEndpoints), ("state=\"disabled\"", counts.disabledEndpoints),
        ])
    }
}
