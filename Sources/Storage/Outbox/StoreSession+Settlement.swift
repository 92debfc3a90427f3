public import Foundation

extension OutboxOperations {
    /// Applies the bookkeeping of one batch of answered rows in one transaction and a fixed number
    /// of statements: one locks every row of the batch in lock order (the order enqueueing locks
    /// them, so the two never deadlock) and reads its generation and attempts; one deletes the rows
    /// that are done (or, in a table that keeps them, marks them `completedState`); one updates
    /// all the others (released, rescheduled, failed) from a single JSON parameter. Never a round
    /// trip per row.
    @discardableResult
    public func settleOutbox(_ settlement: OutboxSettlement, in table: OutboxTable = .pushes, now: Date) throws -> OutboxSettlementResult {
        guard !settlement.entries.isEmpty else { return OutboxSettlementResult() }
        return try transaction {
            let order = table.lockOrder.map { $0 + (table.textKeys ? bytewise : "") }.joined(separator: ", ")
            let lockedRows = try execute("""
                SELECT id, generation, attempts FROM \(unsafeRaw: table.name)
                WHERE \(column("id", in: settlement.entries.map(\.id)))
                ORDER BY \(unsafeRaw: order)\(unsafeRaw: forUpdate)
                """)
            var current: [Int64: (generation: Int64, attempts: Int)] = [:]
            current.reserveCapacity(lockedRows.count)
            for row in lockedRows { current[try row.int64("id")] = (try row.int64("generation"), try row.int("attempts")) }

            var result = OutboxSettlementResult()
            var deletions: [Int64] = []
            var completions: [Int64] = []
            var updates = JSONRecords()
            for entry in settlement.entries {
                guard let locked = current[entry.id] else {
                    result.missing += 1
                    continue
                }
                switch OutboxSettlement.step(for: entry, current: locked, now: now) {
                case .delete where table.completedState != nil:
                    completions.append(entry.id)
                case .delete:
                    deletions.append(entry.id)
                case .update(let attempts, let next, let failed, let status, let reason):
                    updates.append([
                        "id": .integer(entry.id), "attempts": .integer(Int64(attempts)), "next": .integer(next),
                        "failed": .integer(failed ? 1 : 0), "keep": .integer(status == nil ? 1 : 0),
                        "status": status.map { .integer(Int64($0)) } ?? .null, "reason": reason.map { .text($0) } ?? .null,
                    ])
                }
            }
            if !deletions.isEmpty {
                try executeDeferred("DELETE FROM \(unsafeRaw: table.name) WHERE \(column("id", in: deletions))")
                result.deletedIDs = Set(deletions)
            }
            if let completed = table.completedState, !completions.isEmpty {
                try executeDeferred("""
                    UPDATE \(unsafeRaw: table.name) SET state = \(completed), attempts = attempts + 1, claimed_until = NULL
                    WHERE \(column("id", in: completions))
                    """)
                result.deletedIDs = Set(completions)
            }
            if updates.count > 0 {
                let values = recordSet(updates, alias: "x", columns: [
                    ("id", "bigint"), ("attempts", "integer"), ("next", "bigint"), ("failed", "integer"), ("keep", "integer"),
                    ("status", "integer"), ("reason", "text"),
                ])
                try executeDeferred("""
                    UPDATE \(unsafeRaw: table.name) SET attempts = x.attempts, next_attempt_at = x.next, claimed_until = NULL,
                        state = CASE WHEN x.failed = 1 THEN 'failed' ELSE 'pending' END,
                        last_status = CASE WHEN x.keep = 1 THEN \(unsafeRaw: table.name).last_status ELSE x.status END,
                        last_reason = CASE WHEN x.keep = 1 THEN \(unsafeRaw: table.name).last_reason ELSE x.reason END
                    FROM \(values)
                    WHERE \(unsafeRaw: table.name).id = x.id
                    """)
                result.updated = updates.count
            }
            return result
        }
    }

    /// Claims up to `limit` due rows of `table` for `lease` in one statement: pending, due by `now`,
    /// not claimed by a live lease, oldest due first (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so
    /// several processes share the table); `only` narrows the rows further. Returns `columns` of
    /// each row claimed.
    func claimDue(in table: OutboxTable, only: SQLQuery? = nil, returning columns: SQLQuery, limit: Int, now: Date, lease: Duration) throws -> [SQLRow] {
        let nowMillis = now.storageMillis
        let narrowed: SQLQuery = only.map { "\($0) AND " } ?? ""
        return try execute("""
            UPDATE \(unsafeRaw: table.name) SET claimed_until = \(nowMillis + lease.milliseconds)
            WHERE id IN (
                SELECT id FROM \(unsafeRaw: table.name)
                WHERE \(narrowed)state = 'pending' AND next_attempt_at <= \(nowMillis)
                  AND (claimed_until IS NULL OR claimed_until <= \(nowMillis))
                ORDER BY next_attempt_at, id LIMIT \(limit)\(unsafeRaw: skipLocked))
            RETURNING \(columns)
            """)
    }

    /// Records the outcomes of many pushes with one multi-row insert.
    public func recordPushes(_ entries: [PushLogEntry]) throws {
        guard !entries.isEmpty else { return }
        var records = JSONRecords()
        for entry in entries {
            records.append([
                "t": .text(entry.tokenHash), "p": .text(entry.passTypeIdentifier.rawValue), "s": .integer(Int64(entry.status)),
                "r": entry.reason.map { .text($0) } ?? .null, "a": entry.apnsID.map { .text($0) } ?? .null,
                "l": .integer(entry.latencyMilliseconds), "c": .integer(entry.createdAt.storageMillis),
                "o": entry.outcome.map { .text($0) } ?? .null,
            ])
        }
        let values = recordSet(records, alias: "x", columns: [
            ("t", "text"), ("p", "text"), ("s", "integer"), ("r", "text"), ("a", "text"), ("l", "bigint"), ("c", "bigint"), ("o", "text"),
        ])
        try executeDeferred("""
            INSERT INTO push_log (token_hash, pass_type_identifier, status, reason, apns_id, latency_ms, created_at, outcome)
            SELECT x.t, x.p, x.s, x.r, x.a, x.l, x.c, x.o FROM \(values)
            """)
    }
}
