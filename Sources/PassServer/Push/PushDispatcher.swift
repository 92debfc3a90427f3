import ByteEncoding
import APNs
import Certificates
import Foundation
import Logging
import PassIdentifiers
import Storage

/// Delivers the push outbox: the outbox engine (`OutboxEngine`) over the push channel
/// (`PushChannel`: `push_outbox`, APNs, the reply table), paced by the phones' fetches
/// (`PushPacing`) when a signing meter is given.
///
/// Threading: one worker thread claims, sends and records; the APNs client's I/O thread hands
/// answers back through the engine's queue (see `OutboxEngine`).
final class PushDispatcher: Sendable {
    typealias Settings = OutboxSettings

    /// Totals since start, for metrics and tests.
    let store: any Store
    let policy: PushPolicy
    let settings: Settings
    let now: @Sendable () -> Date
    let channel: PushChannel
    let engine: OutboxEngine<PushChannel>

    init(
        store: any Store, sender: PushSender, policy: PushPolicy, readiness: Readiness, logger: Logger,
        settings: Settings = Settings(), pacing: any OutboxPacing = Unpaced(), service: PushService = .apns,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.policy = policy
        self.settings = settings
        self.now = now
        channel = PushChannel(
            store: store, sender: sender, policy: policy, readiness: readiness, logger: logger, unreachableGrace: settings.unreachableGrace,
            service: service
        )
        engine = OutboxEngine(
            channel: channel,
            settings: settings, pacing: pacing, logger: logger, name: service == .apns ? "push-dispatcher" : "relay-dispatcher",
            activity: service == .apns ? "push dispatch" : "relay push dispatch", now: now
        )
    }

    var statistics: OutboxStatistics { channel.status.withLock { $0.statistics } }

    /// Whether sending is paused after APNs refused our credentials or topic (probing included).
    var isHalted: Bool { engine.isHalted }

    /// The `/readyz` finding while APNs has been unreachable for longer than the grace and pushes
    /// are pending (the outbox is only asked once the outage is long enough; if the database
    /// cannot answer, `/readyz` reports that instead).
    func unreachableFinding() -> Readiness.Finding? {
        guard let outage = channel.status.withLock({ $0.reachability.outage(beyond: settings.unreachableGrace, now: now()) }),
              (try? store.withSession(.read, { try $0.outbox.hasPendingPushes() })) == true
        else { return nil }
        return Readiness.Finding(
            severity: .problem, component: channel.component,
            message: "unreachable for \(Int(outage)) s (connect or TLS failures) while pushes are pending"
                + "; APNS_UNREACHABLE_GRACE is \(Int(settings.unreachableGrace)) s"
        )
    }

    func start() { engine.start() }

    /// Asks the dispatcher to look at the outbox now (after this process enqueued something).
    func wake() { engine.wake() }

    /// Stops claiming, waits for in-flight pushes (bounded by the drain timeout) and records them.
    func shutdown() { engine.shutdown() }

    /// What the push log keeps of a token: its SHA-256, never the token.
    static func tokenHash(_ pushToken: PushToken) throws -> String {
        Hex.encode(try Digest.sha256().hash(Array(pushToken.rawValue.utf8)))
    }
}
