public import Foundation

/// Scheduled actions (migration 24): rows with a due time, applied once.
///
/// A scheduler claims a due row with `claimDueScheduledAction(now:)` inside the transaction that
/// applies it: `FOR UPDATE SKIP LOCKED` on PostgreSQL, so several servers never take the same row
/// and none waits for another; SQLite's single writer does the same for one process. The row lock
/// is the claim and lasts exactly as long as the change it applies: the row's move from pending to
/// applied commits with that change or not at all, so a crash leaves it pending and whole. Anyone
/// changing a pending row (an organizer editing or cancelling it) locks it first
/// (`lockedScheduledAction`) and checks it is still pending: of an edit and an application at
/// once, the second waits for the first and then sees what it did.
extension ScheduleOperations {
    public func insertScheduledAction(_ action: ScheduledAction) throws {
        try execute("""
            INSERT INTO scheduled_actions (id, event_id, kind, due_at, state, payload, reason, job_id, created_at, updated_at, finished_at)
            VALUES (\(action.id), \(action.eventID), \(action.kind.rawValue), \(action.dueAt.storageMillis), \(action.state.rawValue),
                \(action.payload), \(action.reason), \(action.jobID), \(action.createdAt.storageMillis), \(action.updatedAt.storageMillis),
                \(action.finishedAt?.storageMillis))
            """)
    }

    public func scheduledAction(id: String) throws -> ScheduledAction? {
        try first("SELECT \(ScheduledAction.columns) FROM scheduled_actions WHERE id = \(id)").map(ScheduledAction.init(row:))
    }

    /// The row locked for a change (`FOR UPDATE`; SQLite's writer), or nil: waits while a
    /// scheduler applies it.
    public func lockedScheduledAction(id: String) throws -> ScheduledAction? {
        try first("SELECT \(ScheduledAction.columns) FROM scheduled_actions WHERE id = \(id)\(unsafeRaw: forUpdate)").map(ScheduledAction.init(row:))
    }

    /// The event's scheduled actions of `kind` (in `states`, or all), by due time.
    public func scheduledActions(eventID: String, kind: ScheduledAction.Kind, states: [ScheduledAction.State]? = nil, limit: Int = 200) throws -> [ScheduledAction] {
        let filter: SQLQuery = states.map { "AND \(textColumn("state", in: $0.map(\.rawValue)))" } ?? ""
        return try execute("""
            SELECT \(ScheduledAction.columns) FROM scheduled_actions WHERE event_id = \(eventID) AND kind = \(kind.rawValue) \(filter)
            ORDER BY due_at, id LIMIT \(limit)
            """).map(ScheduledAction.init(row:))
    }

    /// A pending row's new time and payload (the caller holds its lock and checked it is pending).
    public func updateScheduledAction(id: String, dueAt: Date, payload: String, now: Date) throws -> ScheduledAction {
        guard let row = try first("""
            UPDATE scheduled_actions SET due_at = \(dueAt.storageMillis), payload = \(payload), updated_at = \(now.storageMillis)
            WHERE id = \(id) AND state = 'pending' RETURNING \(ScheduledAction.columns)
            """)
        else { throw StorageError(.notFound, "no such pending scheduled action") }
        return try ScheduledAction(row: row)
    }

    /// Ends a pending row: applied (with the job its change started), failed (with the reason) or
    /// cancelled. The caller holds its lock.
    public func finishScheduledAction(id: String, state: ScheduledAction.State, reason: String? = nil, jobID: String? = nil, now: Date) throws -> ScheduledAction {
        guard let row = try first("""
            UPDATE scheduled_actions SET state = \(state.rawValue), reason = \(reason), job_id = \(jobID), updated_at = \(now.storageMillis),
                finished_at = \(now.storageMillis)
            WHERE id = \(id) AND state = 'pending' RETURNING \(ScheduledAction.columns)
            """)
        else { throw StorageError(.notFound, "no such pending scheduled action") }
        return try ScheduledAction(row: row)
    }

    /// The pending row due longest ago, locked for the caller's transaction; rows another server
    /// holds are skipped (PostgreSQL). Call it inside the transaction that applies the row.
    public func claimDueScheduledAction(now: Date) throws -> ScheduledAction? {
        try first("""
            SELECT \(ScheduledAction.columns) FROM scheduled_actions
            WHERE state = 'pending' AND due_at <= \(now.storageMillis)
            ORDER BY due_at, id LIMIT 1\(unsafeRaw: skipLocked)
            """).map(ScheduledAction.init(row:))
    }

    /// When the next pending row is due (nil when none is pending).
    public func nextScheduledDue() throws -> Date? {
        try first("SELECT min(due_at) AS due FROM scheduled_actions WHERE state = 'pending'")?.optionalDate("due")
    }

    /// Rows by kind and state.
    public func scheduledActionCounts() throws -> ScheduledActionCounts {
        var counts = ScheduledActionCounts()
        for row in try execute("SELECT kind, state, count(*) AS n FROM scheduled_actions GROUP BY kind, state") {
            guard let kind = ScheduledAction.Kind(rawValue: try row.string("kind")), let state = ScheduledAction.State(rawValue: try row.string("state"))
            else { continue }
            counts.byKindAndState[kind, default: [:]][state] = try row.int("n")
        }
        return counts
    }
}
