/// What `advanceRevision(by:)` did to the revision counter.
public struct RevisionAdvance: Sendable, Equatable {
    /// The counter before: the highest revision any change had taken.
    public var before: Int64
    /// The counter after: the next change takes `after + 1`.
    public var after: Int64
}

// The revision counter is the source of every `lastUpdated` tag a phone holds. Restoring an older
// backup moves it back behind tags phones already have; a phone then asks for changes after its
// tag and misses every change until the counter catches up. Advancing the counter past those tags
// is the repair, and it must only ever move forwards.
extension RevisionOperations {
    /// The current value of the global revision counter: the revision the latest change took
    /// (0 on a new database). The next change takes this value plus one.
    public func currentRevision() throws -> Int64 {
        guard let row = try first("SELECT value FROM counters WHERE name = 'revision'") else {
            throw StorageError(.backend, "the revision counter is missing (run migrations)")
        }
        return try row.int64("value")
    }

    /// Raises the revision counter by `amount` in one transaction and returns its values before
    /// and after. Safe while servers run against the same database: the counter row is locked
    /// exactly as `nextRevision` locks it, so changes committing around the advance keep taking
    /// distinct, increasing revisions, and every change that commits after it takes a revision
    /// above `after`.
    ///
    /// Throws `.invalidValue` if `amount` is not positive, or if the counter would pass
    /// `Int64.max`; the counter is then left as it was.
    public func advanceRevision(by amount: Int64) throws -> RevisionAdvance {
        guard amount > 0 else {
            throw StorageError(.invalidValue, "the revision counter can only be advanced by a positive amount")
        }
        return try transaction {
            // Locking the row first (SQLite's BEGIN IMMEDIATE already holds the write lock) lets the
            // overflow check read a value no one else can change before the UPDATE: computing
            // `value + amount` in SQL would fail on PostgreSQL and turn into a REAL on SQLite.
            guard let row = try first("SELECT value FROM counters WHERE name = 'revision'\(unsafeRaw: forUpdate)") else {
                throw StorageError(.backend, "the revision counter is missing (run migrations)")
            }
            let before = try row.int64("value")
            let (after, overflow) = before.addingReportingOverflow(amount)
            guard !overflow else {
                throw StorageError(
                    .invalidValue,
                    "advancing the revision counter (now \(before)) by \(amount) would pass the 64-bit limit \(Int64.max)"
                )
            }
            try execute("UPDATE counters SET value = \(after) WHERE name = 'revision'")
            return RevisionAdvance(before: before, after: after)
        }
    }
}
