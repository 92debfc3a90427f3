import Foundation
import GoogleWallet
import Logging
import Storage

/// Brings Google Wallet up to date: the outbox engine (`OutboxEngine`) over the Google channel
/// (`GoogleWalletChannel`: `google_outbox`, Google's Wallet API, `GooglePolicy`).
///
/// Threading: the engine's worker thread claims, writes classes and objects and records answers;
/// the sender's threads make the blocking calls and hand each answer back through the engine.
final class GoogleWalletDispatcher: Sendable {
    let channel: GoogleWalletChannel
    let engine: OutboxEngine<GoogleWalletChannel>

    init(channel: GoogleWalletChannel, settings: OutboxSettings, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.channel = channel
        engine = OutboxEngine(channel: channel, settings: settings, logger: logger, name: "google-dispatcher", activity: "Google Wallet update", now: now)
    }

    var statistics: OutboxStatistics { channel.statistics.withLock { $0 } }
    var isHalted: Bool { engine.isHalted }

    /// The `/readyz` warning while Google has been unreachable for longer than the grace and
    /// updates are pending. A warning: phones and the door need the instance meanwhile.
    func unreachableFinding() -> Readiness.Finding? {
        let grace = engine.settings.unreachableGrace
        guard let outage = channel.reachability.withLock({ $0.outage(beyond: grace, now: engine.now()) }),
              ((try? channel.store.withSession(.read, { try $0.google.googleOutboxCounts() }))?.pending ?? 0) > 0
        else { return nil }
        return Readiness.Finding(
            severity: .warning, component: "google_wallet",
            message: "Google's Wallet API unreachable for \(Int(outage)) s while updates are pending"
        )
    }

    func start() {
        channel.sender.start()
        engine.start()
    }

    /// Changes were enqueued in this process: look now.
    func wake() { engine.wake() }

    func shutdown() {
        engine.shutdown()
    }
}

extension Application {
    /// Sending threads: Google's API answers in tens of milliseconds, so a few calls in flight
    /// keep a large import or an event's objects moving without a burst Google would throttle.
    static let googleSenderThreads = 8

    /// The Google Wallet dispatcher when GOOGLE_WALLET_ISSUER_ID is set (nil: Google Wallet is
    /// off); turns the database's enqueueing on or off to match.
    static func googleWalletDispatcher(
        _ configuration: Configuration, publicURL: URL, store: any Store, passes: PassService, readiness: Readiness, logger: Logger,
        now: @escaping @Sendable () -> Date
    ) throws -> GoogleWalletDispatcher? {
        let settings = configuration.googleWallet
        guard let issuerID = settings.issuerID, let keyFile = settings.serviceAccountFile else {
            try store.withSession(.write) { try $0.google.setGoogleWallet(enabled: false) }
            return nil
        }
        let account: GoogleServiceAccount
        do {
            account = try GoogleServiceAccount.load(file: keyFile)
        } catch {
            throw ConfigurationError(problems: ["GOOGLE_WALLET_SERVICE_ACCOUNT_FILE: \(error)"])
        }
        let client = GoogleWalletClient(account: account, endpoints: settings.endpoints, caFile: settings.caFile, timeout: .seconds(settings.timeout), now: now)
        let tickets = GoogleTickets(issuerID: issuerID, issuerName: passes.organizationName, publicURL: publicURL, vault: passes.vault)
        let channel = GoogleWalletChannel(
            store: store, sender: GoogleSender(client: client, threads: googleSenderThreads),
            policy: GooglePolicy(schedule: RetrySchedule(
                baseDelay: configuration.push.retryBaseDelay, maxDelay: configuration.push.retryMaxDelay,
                maxRetryAge: TimeInterval(configuration.push.maxRetryAge)
            )),
            tickets: tickets, readiness: readiness, logger: logger, now: now
        )
        try store.withSession(.write) { try $0.google.setGoogleWallet(enabled: true) }
        logger.notice("Google Wallet on", ["google.issuer": issuerID, "google.account": account.clientEmail, "google.api": settings.endpoints.api])
        var engine = OutboxSettings()
        engine.batchSize = 500
        engine.maxInFlight = 1_000
        engine.lease = .seconds(settings.lease ?? 2 * settings.timeout + 30)
        engine.haltPause = TimeInterval(configuration.push.haltPause)
        engine.drainTimeout = TimeInterval(configuration.http.drainTimeout)
        engine.unreachableGrace = TimeInterval(configuration.apns.unreachableGrace)
        return GoogleWalletDispatcher(channel: channel, settings: engine, logger: logger, now: now)
    }
}
