public import Foundation

extension StoreSession {
    /// Table-wide counts for monitoring, in one query. Each part reads an index (registrations'
    /// and devices' primary keys, outbox `(state, first_enqueued_at)`, jobs `(state, created_at)`).
    public func statistics() throws -> StoreStatistics {
        guard let row = try first("""
            SELECT
                (SELECT count(*) FROM registrations) AS registrations,
                (SELECT count(*) FROM devices) AS devices,
                (SELECT min(first_enqueued_at) FROM push_outbox WHERE state = 'pending') AS oldest_pending,
                (SELECT count(*) FROM jobs WHERE state = 'pending') AS jobs_pending,
                (SELECT count(*) FROM jobs WHERE state = 'running') AS jobs_running,
                (SELECT count(*) FROM jobs WHERE state = 'done') AS jobs_done,
                (SELECT count(*) FROM jobs WHERE state = 'failed') AS jobs_failed,
                (SELECT CAST(COALESCE(sum(total), 0) AS BIGINT) FROM jobs WHERE state IN ('pending', 'running')) AS unfinished_total,
                (SELECT CAST(COALESCE(sum(done), 0) AS BIGINT) FROM jobs WHERE state IN ('pending', 'running')) AS unfinished_done,
                (SELECT count(*) FROM checkins) AS checked_in,
                (SELECT CAST(COALESCE(sum(saved), 0) AS BIGINT) FROM google_wallet_events) AS google_wallet_saved
            """)
        else { throw StorageError(.backend, "count query returned no row") }
        return StoreStatistics(
            registrations: try row.int("registrations"), devices: try row.int("devices"),
            oldestPendingPush: try row.optionalDate("oldest_pending"),
            jobs: [
                .pending: try row.int("jobs_pending"), .running: try row.int("jobs_running"),
                .done: try row.int("jobs_done"), .failed: try row.int("jobs_failed"),
            ],
            unfinishedJobPasses: try row.int64("unfinished_total"), unfinishedJobPassesDone: try row.int64("unfinished_done"),
            checkedIn: try row.int("checked_in"), googleWalletSaved: try row.int("google_wallet_saved")
        )
    }
}

/// Counts across the database for `/metrics`.
public struct StoreStatistics: Sendable, Equatable {
    public var registrations: Int
    public var devices: Int
    /// When the oldest pending push was first enqueued; nil when none is pending.
    public var oldestPendingPush: Date?
    /// Jobs by state.
    public var jobs: [Job.State: Int]
    /// Passes to bump, and bumped so far, summed over pending and running jobs.
    public var unfinishedJobPasses: Int64
    public var unfinishedJobPassesDone: Int64
    /// Tickets checked in at the door (`checkins` rows).
    public var checkedIn: Int
    /// Tickets saved in Google Wallet now (the events' counts summed).
    public var googleWalletSaved: Int

    public init(
        registrations: Int, devices: Int, oldestPendingPush: Date?, jobs: [Job.State: Int],
        unfinishedJobPasses: Int64, unfinishedJobPassesDone: Int64, checkedIn: Int = 0, googleWalletSaved: Int = 0
    ) {
        self.googleWalletSaved = googleWalletSaved
        self.registrations = registrations
        self.devices = devices
        self.oldestPendingPush = oldestPendingPush
        self.jobs = jobs
        self.unfinishedJobPasses = unfinishedJobPasses
        self.unfinishedJobPassesDone = unfinishedJobPassesDone
        self.checkedIn = checkedIn
    }
}
