import Foundation
import HTTPClient
import Logging
import Storage

/// Sends webhooks: the outbox engine (`OutboxEngine`) over the webhook channel (`WebhookChannel`:
/// `webhook_deliveries`, the endpoints' servers, `WebhookPolicy`).
///
/// Threading: the engine's worker thread claims, makes the bodies and records answers; the
/// sender's threads make the blocking calls and hand each answer back through the engine.
final class WebhookDispatcher: Sendable {
    let channel: WebhookChannel
    let engine: OutboxEngine<WebhookChannel>

    init(channel: WebhookChannel, settings: OutboxSettings, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.channel = channel
        engine = OutboxEngine(channel: channel, settings: settings, logger: logger, name: "webhook-dispatcher", activity: "webhook delivery", now: now)
    }

    var statistics: OutboxStatistics { channel.statistics.withLock { $0 } }

    func start() {
        channel.sender.start()
        engine.start()
    }

    /// Deliveries were queued in this process: look now.
    func wake() { engine.wake() }

    func shutdown() {
        engine.shutdown()
    }
}

extension Application {
    /// The webhook dispatcher (always on: with no endpoint it claims nothing).
    static func webhookDispatcher(
        _ configuration: Configuration, store: any Store, passes: PassService, logger: Logger, now: @escaping @Sendable () -> Date
    ) -> WebhookDispatcher {
        let settings = configuration.webhooks
        let sender = WebhookSender(
            targets: WebhookTargets(allowPrivate: settings.allowPrivateTargets), timeout: .seconds(settings.timeout),
            threads: settings.senderThreads, perEndpoint: settings.perEndpointConcurrency, rest: settings.restAfterUnreachable, now: now,
            render: { event, events in try WebhookPayload(event, downloadURL: { try? passes.downloadURL(for: $0) }, events: &events).encoded() }
        )
        let channel = WebhookChannel(
            store: store, sender: sender,
            policy: WebhookPolicy(schedule: RetrySchedule(
                baseDelay: settings.retryBaseDelay, maxDelay: settings.retryMaxDelay, maxRetryAge: settings.maxRetryAge
            )),
            vault: passes.vault, passes: passes, logger: logger, perEndpointInFlight: settings.perEndpointInFlight,
            disableAfter: TimeInterval(settings.disableAfter), now: now
        )
        var engine = OutboxSettings()
        engine.batchSize = 500
        engine.maxInFlight = settings.maxInFlight
        engine.lease = .seconds(settings.lease ?? 2 * settings.timeout + 30)
        engine.pollInterval = settings.pollInterval
        engine.recordWindow = settings.recordWindow
        engine.drainTimeout = TimeInterval(configuration.http.drainTimeout)
        return WebhookDispatcher(channel: channel, settings: engine, logger: logger, now: now)
    }
}
