public import Foundation
public import Storage

extension Store {
    /// Settles one claimed outbox row as the push dispatcher would after its answer (a batch of
    /// one); returns whether the row was deleted (sent, and unchanged since the claim).
    @discardableResult
    public func settle(_ row: OutboxRow, _ change: OutboxSettlement.Change, now: Date) throws -> Bool {
        let entry = OutboxSettlement.Entry(id: row.id, generation: row.generation, change: change)
        return try withSession(.write) { try $0.outbox.settleOutbox(OutboxSettlement(entries: [entry]), now: now) }.deleted == 1
    }

    /// Writes push log entries as the push dispatcher does (one insert).
    public func recordPushes(_ entries: [PushLogEntry]) throws {
        try withSession(.write) { try $0.outbox.recordPushes(entries) }
    }
}
