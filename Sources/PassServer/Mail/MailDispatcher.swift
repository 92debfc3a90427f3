import Foundation
import Logging
import Mail
import PassBundle
import Storage

/// Delivers the mail outbox: the outbox engine (`OutboxEngine`) over the mail channel
/// (`MailChannel`: `mail_outbox`, the SMTP server, `MailPolicy`), paced by `MAIL_RATE`
/// (`MailPacing`).
///
/// Threading: the engine's worker thread claims, writes messages and records answers; the
/// sender's own thread talks SMTP and hands each answer back through the engine's queue.
final class MailDispatcher: Sendable {
    let channel: MailChannel
    let engine: OutboxEngine<MailChannel>

    /// The engine settings for `rate` messages a second: claims of one burst, two bursts in flight
    /// at most (so a crash can repeat no more than those), `haltPause` after the server refuses us, and `lease` (a message that waited so
    /// long that it could not finish within its row's lease is not sent, but retried).
    static func settings(
        rate: Double, lease: Duration, haltPause: TimeInterval, drainTimeout: TimeInterval, unreachableGrace: TimeInterval
    ) -> OutboxSettings {
        let burst = Int(MailPacing(rate: rate).burst)
        var settings = OutboxSettings()
        settings.batchSize = burst
        settings.maxInFlight = max(4, 2 * burst)
        settings.lease = lease
        settings.haltPause = haltPause
        settings.drainTimeout = drainTimeout
        settings.unreachableGrace = unreachableGrace
        return settings
    }

    init(channel: MailChannel, rate: Double, settings: OutboxSettings, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.channel = channel
        engine = OutboxEngine(
            channel: channel, settings: settings, pacing: MailPacing(rate: rate), logger: logger, name: "mail-dispatcher",
            activity: "email", now: now
        )
    }

    var statistics: OutboxStatistics { channel.statistics.withLock { $0 } }

    /// Whether sending is paused after the SMTP server refused us (probing included).
    var isHalted: Bool { engine.isHalted }

    /// The `/readyz` warning while the SMTP server has been unreachable for longer than
    /// `MAIL_UNREACHABLE_GRACE` and emails are pending. A warning, not a problem: taking the
    /// instance out of a load balancer would not bring the SMTP server back, and phones and the
    /// door need the instance meanwhile.
    func unreachableFinding() -> Readiness.Finding? {
        let grace = engine.settings.unreachableGrace
        guard let outage = channel.reachability.withLock({ $0.outage(beyond: grace, now: engine.now()) }),
              (try? channel.store.withSession(.read, { try $0.outbox.hasPendingEmails() })) == true
        else { return nil }
        return Readiness.Finding(
            severity: .warning, component: "smtp",
            message: "unreachable for \(Int(outage)) s (connect or TLS failures) while emails are pending"
                + "; MAIL_UNREACHABLE_GRACE is \(Int(grace)) s"
        )
    }

    func start() {
        channel.sender.start()
        engine.start()
    }

    /// Emails were queued in this process: look now.
    func wake() { engine.wake() }

    /// Stops claiming, drops the messages not started (they are due again at once), waits for the
    /// one in progress (bounded by the drain timeout) and records every answer.
    func shutdown() {
        channel.sender.stop()
        engine.shutdown()
    }
}
