public import Foundation

extension JobOperations {
    static let jobColumns = SQLQuery(unsafeRaw: """
        id, kind, event_id, state, total, done, failed, cursor, claimed_until, started_at, finished_at, error, created_at
        """)

    /// Creates a pending job; for a re-push, `total` is the event's pass count at creation (its
    /// active passes', for an announcement job).
    public func createJob(kind: String, eventID: String?, now: Date) throws -> Job {
        let active: SQLQuery = kind == Job.announcementKind ? " AND status = 'active'" : ""
        let total: SQLQuery = eventID.map { "(SELECT count(*) FROM passes WHERE event_id = \($0)\(active))" } ?? "0"
        guard let row = try first("""
            INSERT INTO jobs (id, kind, event_id, state, total, created_at)
            VALUES (\(RandomIdentifier.make()), \(kind), \(eventID), 'pending', \(total), \(now.storageMillis))
            RETURNING \(Self.jobColumns)
            """)
        else { throw StorageError(.backend, "insert returned no row") }
        return try Job(row: row)
    }

    public func job(id: String) throws -> Job? {
        try first("SELECT \(Self.jobColumns) FROM jobs WHERE id = \(id)").map(Job.init(row:))
    }

    /// The jobs with these ids, in one statement.
    public func jobs(ids: [String]) throws -> [String: Job] {
        guard !ids.isEmpty else { return [:] }
        var jobs: [String: Job] = [:]
        for row in try execute("SELECT \(Self.jobColumns) FROM jobs WHERE \(textColumn("id", in: Array(Set(ids)).sorted()))") {
            let job = try Job(row: row)
            jobs[job.id] = job
        }
        return jobs
    }

    /// Jobs newest first (optionally of one event).
    public func jobs(eventID: String?, limit: Int) throws -> [Job] {
        let filter: SQLQuery = eventID.map { "WHERE event_id = \($0)" } ?? ""
        return try execute("SELECT \(Self.jobColumns) FROM jobs \(filter) ORDER BY created_at DESC, id LIMIT \(limit)")
            .map(Job.init(row:))
    }

    /// Claims the oldest pending job, or a running one whose runner's lease expired (it crashed),
    /// for `lease`. Concurrent runners never get the same job.
    public func claimJob(now: Date, lease: Duration) throws -> Job? {
        let nowMillis = now.storageMillis
        return try first("""
            UPDATE jobs SET state = 'running', claimed_until = \(nowMillis + lease.milliseconds),
                started_at = COALESCE(started_at, \(nowMillis))
            WHERE id IN (
                SELECT id FROM jobs
                WHERE state IN ('pending', 'running') AND (claimed_until IS NULL OR claimed_until <= \(nowMillis))
                ORDER BY created_at, id LIMIT 1\(unsafeRaw: skipLocked))
            RETURNING \(Self.jobColumns)
            """).map(Job.init(row:))
    }

    /// Runs the next batch of a re-push job in one transaction: the next `batchSize` passes of
    /// the event after the job's cursor all get one new revision (they changed together),
    /// `modified_at = max(now, previous + 1)` and the job as the last to bump them; their push
    /// tokens are enqueued with one `INSERT … SELECT … ON CONFLICT` (owned by the job; none while
    /// the event is archived); their registrations get the new revision and the job; the cursor,
    /// `done` and the lease advance; and the job is marked done when no pass remains. A crash
    /// between batches resumes at the cursor, so no pass is bumped twice.
    public func runRepushBatch(jobID: String, batchSize: Int, now: Date, lease: Duration = .seconds(60)) throws -> RepushBatch {
        try transaction {
            guard let (job, eventID) = try lockRunnableJob(jobID) else {
                return RepushBatch(job: try lockedJob(jobID), passesBumped: 0, pushTokensEnqueued: 0, revision: nil)
            }
            // An announcement job bumps the active passes only (the others do not show it).
            let active: SQLQuery = job.isActiveOnly ? " AND status = 'active'" : ""
            // Lock the batch's passes before taking the revision, the same order as `updatePass`
            // (pass, then counter): the opposite order could deadlock against a single-pass edit.
            let ids = try execute("""
                SELECT id FROM passes WHERE event_id = \(eventID) AND id > \(job.cursor)\(active) ORDER BY id LIMIT \(batchSize)\(unsafeRaw: forUpdate)
                """).map { try $0.int64("id") }
            guard let last = ids.last else {
                let finished = try advanceJob(jobID, cursor: job.cursor, done: 0, finished: true, now: now, lease: lease)
                return RepushBatch(job: finished, passesBumped: 0, pushTokensEnqueued: 0, revision: nil)
            }
            let revision = try nextRevision()
            let activePass: SQLQuery = job.isActiveOnly ? " AND p.status = 'active'" : ""
            let range: SQLQuery = "p.event_id = \(eventID) AND p.id > \(job.cursor) AND p.id <= \(last)\(activePass)"
            try executeDeferred("""
                UPDATE passes SET revision = \(revision), modified_at = \(unsafeRaw: greatest)(\(now.storageSeconds), modified_at + 1),
                    job_id = \(jobID)
                WHERE event_id = \(eventID) AND id > \(job.cursor) AND id <= \(last)\(active)
                """)
            // An archived event's passes still move to the new revision (a phone that asks gets
            // the new pass), but no push is enqueued for them: the enqueue's own condition, so the
            // batch asks no separate question.
            let unarchived: SQLQuery = "NOT EXISTS (SELECT 1 FROM events e WHERE e.id = \(eventID) AND e.archived_at IS NOT NULL)"
            let enqueued = try session.passes.enqueuePushes(
                where: "\(range) AND \(unarchived)", joinPasses: true, owner: PushOwner(eventID: eventID, jobID: jobID), now: now
            )
            try copyRevision(revision, jobID: jobID, eventID: eventID, passIDs: job.cursor, last, activeOnly: job.isActiveOnly)
            // Fewer passes than asked means the event is exhausted: finish now, saving a round.
            let updated = try advanceJob(jobID, cursor: last, done: ids.count, finished: ids.count < batchSize, now: now, lease: lease)
            return RepushBatch(job: updated, passesBumped: ids.count, pushTokensEnqueued: enqueued, revision: revision)
        }
    }

    /// The job locked for a batch (`FOR UPDATE`), with its event, while it is pending or running;
    /// nil when it is finished or has no event. `.notFound` when it does not exist.
    func lockRunnableJob(_ jobID: String) throws -> (Job, eventID: String)? {
        let job = try lockedJob(jobID)
        guard job.state == .pending || job.state == .running, let eventID = job.eventID else { return nil }
        return (job, eventID)
    }

    func lockedJob(_ jobID: String) throws -> Job {
        guard let job = try first("SELECT \(Self.jobColumns) FROM jobs WHERE id = \(jobID)\(unsafeRaw: forUpdate)").map(Job.init(row:))
        else { throw StorageError(.notFound, "no such job") }
        return job
    }

    /// Moves a job past a batch, as the batch's last statement (`executeFinal`): the cursor to
    /// `cursor`, `done` up by `done`, and either the lease extended or, when `finished`, the job done. With `totalIsDone` the job's `total` follows
    /// what it did (at least `done`, exactly `done` once finished); otherwise it stays as created.
    func advanceJob(
        _ jobID: String, cursor: Int64, done: Int, finished: Bool, totalIsDone: Bool = false, now: Date, lease: Duration
    ) throws -> Job {
        let nowMillis = now.storageMillis
        let total: SQLQuery = !totalIsDone ? "total" : finished ? "done + \(done)" : "\(unsafeRaw: greatest)(total, done + \(done))"
        guard let row = try executeFinal("""
            UPDATE jobs SET cursor = \(cursor), done = done + \(done), total = \(total),
                state = \(finished ? "done" : "running"),
                finished_at = \(finished ? nowMillis : nil),
                claimed_until = \(finished ? nil : nowMillis + lease.milliseconds),
                started_at = COALESCE(started_at, \(nowMillis))
            WHERE id = \(jobID) RETURNING \(Self.jobColumns)
            """).first
        else { throw StorageError(.notFound, "no such job") }
        return try Job(row: row)
    }

    /// Gives the registrations of the event's passes with ids in `(after, last]` the revision
    /// their passes just took and the job that bumped them. On PostgreSQL the rows are locked in
    /// primary-key order first, the order in which the dispatcher locks the registrations it
    /// prunes, so the two never wait for each other in a cycle.
    private func copyRevision(_ revision: Int64, jobID: String, eventID: String, passIDs after: Int64, _ last: Int64, activeOnly: Bool) throws {
        let active: SQLQuery = activeOnly
            ? " AND pass_id IN (SELECT id FROM passes WHERE event_id = \(eventID) AND id > \(after) AND id <= \(last) AND status = 'active')" : ""
        let batch: SQLQuery = "event_id = \(eventID) AND pass_id > \(after) AND pass_id <= \(last)\(active)"
        if dialect == .postgres {
            try executeDeferred("""
                UPDATE registrations SET pass_revision = \(revision), job_id = \(jobID)
                WHERE (device_library_identifier, pass_type_identifier, serial_number) IN (
                    SELECT device_library_identifier, pass_type_identifier, serial_number FROM registrations WHERE \(batch)
                    ORDER BY device_library_identifier, pass_type_identifier, serial_number FOR UPDATE)
                """)
        } else {
            try executeDeferred("UPDATE registrations SET pass_revision = \(revision), job_id = \(jobID) WHERE \(batch)")
        }
    }
}
