import Foundation
import Logging
import Storage
import Synchronization
import SystemSupport

/// Webhooks as an outbox channel: `webhook_deliveries` rows, the endpoints' servers as the far
/// end (`WebhookSender`), `WebhookPolicy` as the reply policy. Each row's body is made from its
/// webhook event as recorded with the change (`WebhookPayload`, by the sender's threads), so every
/// delivery of one event carries the same id and body. Each batch of answers is recorded in one transaction: the rows'
/// settlement (a delivered row stays, in its endpoint's log), each attempt's time, status and
/// latency, and the endpoints' health.
///
/// Fairness: each claim takes at most `perEndpointInFlight` rows in flight per endpoint, the
/// endpoints in turn, so one endpoint's backlog (or a slow server) never holds every row the
/// engine may have in flight.
///
/// Failing endpoints: an endpoint every attempt of which has failed for `disableAfter` (no 2xx
/// since) is disabled once an answer shows it, with the reason; its waiting deliveries are held.
final class WebhookChannel: OutboxChannel {
    let store: any Store
    let sender: WebhookSender
    let policy: WebhookPolicy
    let vault: TokenVault
    let passes: PassService
    let logger: Logger
    let now: @Sendable () -> Date
    let perEndpointInFlight: Int
    let disableAfter: TimeInterval
    let statistics = Mutex(OutboxStatistics())
    /// Rows claimed by this process and not yet recorded, per endpoint.
    private let inFlight = Mutex<[String: Int]>([:])
    /// Which endpoint's budget comes first in the next claim.
    private let turn = Atomic<Int>(0)
    /// Signing secrets by endpoint and nonce (derived once; an HMAC each).
    private let secrets = Mutex<[String: String]>([:])

    init(
        store: any Store, sender: WebhookSender, policy: WebhookPolicy, vault: TokenVault, passes: PassService, logger: Logger,
        perEndpointInFlight: Int, disableAfter: TimeInterval, now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.sender = sender
        self.policy = policy
        self.vault = vault
        self.passes = passes
        self.logger = logger
        self.perEndpointInFlight = perEndpointInFlight
        self.disableAfter = disableAfter
        self.now = now
    }

    func claim(limit: Int, now: Date, lease: Duration) throws -> [WebhookDeliveryRow] {
        let rows = try store.withSession(.write) { session -> [WebhookDeliveryRow] in
            let endpoints = try session.webhooks.enabledWebhookEndpointIDs()
            guard !endpoints.isEmpty else { return [] }
            let first = turn.add(1, ordering: .relaxed).oldValue % endpoints.count
            let taken = inFlight.withLock { $0 }
            var remaining = limit
            var budgets: [(endpointID: String, limit: Int)] = []
            for step in 0..<endpoints.count where remaining > 0 {
                let endpoint = endpoints[(first + step) % endpoints.count]
                let share = min(remaining, perEndpointInFlight - (taken[endpoint] ?? 0))
                guard share > 0 else { continue }
                budgets.append((endpoint, share))
                remaining -= share
            }
            return try session.webhooks.claimWebhooks(budgets: budgets, now: now, lease: lease)
        }
        if !rows.isEmpty {
            inFlight.withLock { counts in for row in rows { counts[row.endpointID, default: 0] += 1 } }
        }
        return rows
    }

    func message(for row: WebhookDeliveryRow) -> WebhookOutgoing {
        guard let endpoint = row.endpoint else { return .answer(.unsendable("the endpoint is gone")) }
        guard endpoint.enabled else { return .answer(.held) }
        guard let event = row.event else { return .answer(.unsendable("the webhook event is gone")) }
        guard let secret = secret(of: endpoint) else { return .answer(.unsendable("the signing secret cannot be derived")) }
        return .send(WebhookMessage(endpointID: endpoint.id, url: endpoint.url, secret: secret, event: event, claimedUntil: row.claimedUntil))
    }

    private func secret(of endpoint: WebhookEndpoint) -> String? {
        let key = endpoint.id + "\u{0}" + endpoint.secretNonce
        if let known = secrets.withLock({ $0[key] }) { return known }
        guard let derived = try? vault.webhookSecret(endpointID: endpoint.id, nonce: endpoint.secretNonce) else { return nil }
        secrets.withLock { $0[key] = derived }
        return derived
    }

    func record(_ batch: OutboxBatch<WebhookChannel>, now: Date) throws -> [FailingWebhookEndpoint] {
        let attempts = batch.items.map { item in
            WebhookAttempt(
                deliveryID: item.row.id, endpointID: item.row.endpointID, status: item.answer.status,
                latencyMilliseconds: Int(item.latency.milliseconds),
                outcome: item.answer.attempt
            )
        }
        let failingBefore = now.addingTimeInterval(-disableAfter)
        return try store.transaction { session in
            // Lock order: the deliveries first (settling locks them by id), then their endpoints.
            try session.outbox.settleOutbox(batch.settlement, in: .webhooks, now: now)
            return try session.webhooks.recordWebhookAttempts(attempts, failingBefore: failingBefore, now: now)
        }
    }

    func recorded(_ batch: OutboxBatch<WebhookChannel>, receipt: [FailingWebhookEndpoint]?, now: Date) {
        inFlight.withLock { counts in
            for item in batch.items {
                let left = (counts[item.row.endpointID] ?? 1) - 1
                counts[item.row.endpointID] = left > 0 ? left : nil
            }
        }
        guard let receipt else { return }
        for item in batch.items {
            switch item.decision.result {
            case .failed, .blocked:
                logger.warning("webhook delivery failed", [
                    "webhook.endpoint": item.row.endpointID, "webhook.delivery": "\(item.row.id)", "webhook.reason": item.decision.reason ?? "",
                ])
            default: break
            }
        }
        let added = batch.statistics
        statistics.withLock { $0.add(added) }
        for failing in receipt { disable(failing, now: now) }
    }

    /// Disables an endpoint that kept failing; a later answer tries again if this fails.
    private func disable(_ failing: FailingWebhookEndpoint, now: Date) {
        let days = Int(disableAfter / 86_400)
        let span = days >= 1 && disableAfter.truncatingRemainder(dividingBy: 86_400) == 0 ? "\(days) day\(days == 1 ? "" : "s")" : "\(Int(disableAfter)) s"
        let reason = "Every delivery failed for \(span) (none answered 2xx since \(ISODate.format(failing.failingSince)); last: \(failing.lastFailure ?? "no answer"))."
        do {
            _ = try store.withSession(.write) { try $0.webhooks.setWebhookEndpoint(id: failing.id, enabled: false, reason: reason, now: now) }
            logger.warning("webhook endpoint disabled: it kept failing", ["webhook.endpoint": failing.id, "webhook.reason": reason])
        } catch {
            logger.error("cannot disable a failing webhook endpoint; the next answer tries again", ["webhook.endpoint": failing.id, "error": "\(error)"])
        }
    }

    func halted(why: String, until: Date, pause: TimeInterval) {}

    func resumed() {}
}

extension WebhookDeliveryRow: OutboxItem {}

extension WebhookChannel {
    /// The outcomes a webhook delivery can have, in the order the metrics list them.
    static let outcomes: [OutboxOutcomeKind] = [.delivered, .retried, .deferred, .held, .notSent, .blocked, .failed]
}
