package import Foundation
package import Logging
package import Storage

/// Deletes what is past its retention: push log entries and failed push, email and Google Wallet outbox rows
/// older than `PUSH_LOG_RETENTION` (a ticket's email status keeps its failure), jobs finished
/// longer than `JOB_RETENTION` ago, registrations of passes whose event ended more than
/// `REGISTRATION_RETENTION` ago (with the devices left without any), dashboard sessions that
/// have expired, Google Wallet callback nonces older than 30 days, webhook deliveries delivered
/// or failed longer than `WEBHOOK_LOG_RETENTION` ago (with the webhook events none refers to any
/// more), and deleted events: a deleted event's rows (tickets, registrations, check-ins,
/// email states, jobs, tallies) go once every phone registered for one of its passes was told and
/// served the voided pass, or `DELETED_EVENT_GRACE` after the deletion. With `ERASE_AFTER_DAYS`
/// set, it also erases the attendees' data of events that ended longer ago than that.
///
/// Every delete is a bounded batch in its own short statement or transaction, so a sweep never
/// holds locks for long. One process at a time sweeps: the sweep holds the `retention` lease,
/// renewed between batches; a process that finds it held skips the sweep. Each sweep logs what it
/// removed, per table. Run by the server every `RETENTION_INTERVAL` and by `pass-server prune`.
package struct RetentionSweep: Sendable {
    /// Rows removed by one sweep.
    package struct Removed: Sendable, Equatable {
        var pushLog = 0
        var failedPushes = 0
        var failedEmails = 0
        var failedGoogleUpdates = 0
        var jobs = 0
        var registrations = 0
        var devices = 0
        var sessions = 0
        /// Events whose attendees' data was erased.
        package var erasedEvents = 0
        /// Tickets of deleted events removed, and the deleted events themselves.
        var deletedPasses = 0
        var deletedEvents = 0
        /// Google Wallet callback nonces older than `googleWalletNonceAge`.
        var googleWalletNonces = 0
        /// Webhook deliveries delivered or failed, and webhook events left without a delivery.
        var webhookDeliveries = 0
        var webhookEvents = 0

        /// Table (`push_outbox_failed`, `mail_outbox_failed`: failed rows of those outboxes) and
        /// count, in sweep order.
        package var tables: [(name: String, count: Int)] {
            [("push_log", pushLog), ("push_outbox_failed", failedPushes), ("mail_outbox_failed", failedEmails),
             ("google_outbox_failed", failedGoogleUpdates), ("jobs", jobs),
             ("registrations", registrations), ("devices", devices), ("admin_sessions", sessions),
             ("passes", deletedPasses), ("events", deletedEvents), ("google_wallet_nonces", googleWalletNonces),
             ("webhook_deliveries", webhookDeliveries), ("webhook_events", webhookEvents)]
        }
    }

    static let leaseName = "retention"
    /// How long a Google Wallet callback's nonce is kept: far longer than Google retries a delivery.
    static let googleWalletNonceAge: TimeInterval = 30 * 86_400

    let store: any Store
    let retention: Configuration.Retention
    let logger: Logger
    /// Who holds the lease while this sweep runs: unique per process.
    let holder: String
    var batchSize = 1_000
    /// Longer than any one batch takes; renewed after each.
    var lease: Duration = .seconds(600)
    var now: @Sendable () -> Date = Date.init

    package init(store: any Store, retention: Configuration.Retention, logger: Logger, holder: String, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.retention = retention
        self.logger = logger
        self.holder = holder
        self.now = now
    }

    /// Thrown inside a sweep that lost its lease (it ran longer than the lease and another process
    /// took over) or was asked to stop: the sweep ends early, keeping what it removed.
    private struct Interrupted: Error {}

    /// Runs one sweep and returns what it removed, or nil when another process is sweeping.
    /// `shouldStop` is checked between batches (server shutdown).
    package func run(shouldStop: () -> Bool = { false }) throws -> Removed? {
        let start = now()
        let acquired = try store.withSession(.write) {
            try $0.leases.acquireLease(Self.leaseName, holder: holder, now: start, duration: lease)
        }
        guard acquired else {
            logger.info("retention sweep skipped: another process is sweeping")
            return nil
        }
        defer { _ = try? store.withSession(.write) { try $0.leases.releaseLease(Self.leaseName, holder: holder) } }

        var removed = Removed()
        let pushLogCutoff = start.addingTimeInterval(-TimeInterval(retention.pushLog))
        let jobCutoff = start.addingTimeInterval(-TimeInterval(retention.jobs))
        let eventCutoff = start.addingTimeInterval(-TimeInterval(retention.registrations))
        var devices = 0
        do {
            try drain(shouldStop, into: &removed.pushLog) { try $0.retention.deletePushLog(before: pushLogCutoff, limit: batchSize) }
            try drain(shouldStop, into: &removed.failedPushes) { try $0.retention.deleteFailedOutbox(before: pushLogCutoff, limit: batchSize) }
            try drain(shouldStop, into: &removed.failedEmails) { try $0.retention.deleteFailedMailOutbox(before: pushLogCutoff, limit: batchSize) }
            try drain(shouldStop, into: &removed.failedGoogleUpdates) { try $0.retention.deleteFailedGoogleOutbox(before: pushLogCutoff, limit: batchSize) }
            try drain(shouldStop, into: &removed.jobs) { try $0.retention.deleteFinishedJobs(before: jobCutoff, limit: batchSize) }
            try drain(shouldStop, into: &removed.registrations) { session in
                let batch = try session.retention.deleteRegistrations(ofEventsEndedBefore: eventCutoff, limit: batchSize)
                devices += batch.devices
                return batch.registrations
            }
            try drain(shouldStop, into: &removed.sessions) { try $0.admin.deleteExpiredAdminSessions(before: start, limit: batchSize) }
            try drain(shouldStop, into: &removed.sessions) { try $0.scanners.deleteExpiredScannerSessions(before: start, limit: batchSize) }
            let nonceCutoff = start.addingTimeInterval(-Self.googleWalletNonceAge)
            try drain(shouldStop, into: &removed.googleWalletNonces) { try $0.google.deleteGoogleWalletNonces(before: nonceCutoff, limit: batchSize) }
            let webhookCutoff = start.addingTimeInterval(-TimeInterval(retention.webhookLog))
            try drain(shouldStop, into: &removed.webhookDeliveries) { try $0.webhooks.deleteSettledWebhookDeliveries(before: webhookCutoff, limit: batchSize) }
            try drain(shouldStop, into: &removed.webhookEvents) { try $0.webhooks.deleteUnreferencedWebhookEvents(before: webhookCutoff, limit: batchSize) }
            try removeDeletedEvents(shouldStop, cutoff: start.addingTimeInterval(-TimeInterval(retention.deletedEvents)), into: &removed, devices: &devices)
            if let days = retention.eraseAfterDays {
                try eraseEndedEvents(shouldStop, cutoff: start.addingTimeInterval(-TimeInterval(days) * 86_400), into: &removed)
            }
        } catch is Interrupted {
            logger.warning("retention sweep interrupted; the next sweep goes on", ["reason": shouldStop() ? "stopping" : "lease lost"])
        }
        removed.devices = devices
        var metadata: Logger.Metadata = ["duration_ms": "\(Int(now().timeIntervalSince(start) * 1_000))"]
        for table in removed.tables { metadata[table.name] = "\(table.count)" }
        metadata["events_erased"] = "\(removed.erasedEvents)"
        let total = removed.tables.reduce(removed.erasedEvents) { $0 + $1.count }
        logger.log(total > 0 ? .notice : .info, "retention sweep removed old rows", metadata)
        return removed
    }

    /// Removes deleted events whose phones had their chance (`deletedEventsToRemove`), each in
    /// batches of tickets.
    private func removeDeletedEvents(_ shouldStop: () -> Bool, cutoff: Date, into removed: inout Removed, devices: inout Int) throws {
        let events = try store.withSession(.read) { try $0.erasure.deletedEventsToRemove(deletedBefore: cutoff, limit: batchSize) }
        for id in events {
            while true {
                let batch = try store.withSession(.write) { try $0.erasure.removeDeletedEvent(id: id, limit: batchSize) }
                removed.deletedPasses += batch.passes
                devices += batch.devices
                if batch.eventRemoved {
                    removed.deletedEvents += 1
                    logger.notice("deleted event removed", ["event.id": id])
                }
                guard !batch.eventRemoved && batch.passes > 0 else { break }
                try renewLease(shouldStop)
            }
        }
    }

    /// Erases the attendees' data of events that ended before `cutoff`, one event per transaction.
    private func eraseEndedEvents(_ shouldStop: () -> Bool, cutoff: Date, into removed: inout Removed) throws {
        try drain(shouldStop, into: &removed.erasedEvents) { session in
            let events = try session.erasure.eventsToErase(endedBefore: cutoff, limit: batchSize)
            for id in events {
                let (_, job) = try session.erasure.eraseAttendees(eventID: id, now: now())
                logger.notice("attendee data erased", ["event.id": id, "job.id": job.id, "reason": "ERASE_AFTER_DAYS"])
            }
            return events.count
        }
        if removed.erasedEvents > 0 { try store.withSession(.write) { try $0.erasure.compactErasedData() } }
    }

    /// Runs `batch` until it removes fewer than a full batch, adding each count to `total` and
    /// renewing the lease in between.
    private func drain(_ shouldStop: () -> Bool, into total: inout Int, _ batch: (StoreSession) throws -> Int) throws {
        while true {
            let count = try store.withSession(.write, batch)
            total += count
            guard count >= batchSize else { return }
            try renewLease(shouldStop)
        }
    }

    /// Renews the lease between two batches; `Interrupted` when it was lost or the sweep should stop.
    private func renewLease(_ shouldStop: () -> Bool) throws {
        let renewed = try store.withSession(.write) {
            try $0.leases.acquireLease(Self.leaseName, holder: holder, now: now(), duration: lease)
        }
        guard renewed, !shouldStop() else { throw Interrupted() }
    }
}
