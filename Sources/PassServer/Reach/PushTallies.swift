import Storage

/// What one recording of push outcomes changes in the tallies of the pushes' events and jobs:
/// pushes delivered and given up on, and pending pushes whose outbox row was deleted (the database
/// tallies every other change of a row itself). Rows enqueued before owners were recorded count
/// for nobody.
struct PushTallies {
    private var byOwner: [Owner: Tally] = [:]

    private struct Owner: Hashable {
        var eventID: String
        var jobID: String?
    }

    /// The tallies of a recorded batch: each answer as its decision settles it, `deleted` the rows
    /// the settlement removed from the outbox.
    init(_ batch: OutboxBatch<PushChannel>, deleted: Set<Int64>) {
        for item in batch.items {
            let decision = item.decision
            switch decision.settlement {
            case .completed:
                // Delivered, logged or pruned; a row a newer change kept stays pending.
                finished(item.row, removed: deleted.contains(item.row.id), delivered: decision.accepted, failed: decision.result.effect != nil)
            case .failed:
                // The row's own move from pending to failed is tallied by the database.
                finished(item.row, removed: false, failed: true)
            case .retry, .halt:
                break
            }
        }
    }

    /// A claimed row's push is over: `removed` says whether its outbox row was deleted (no change
    /// arrived meanwhile; otherwise the row stays pending for the newer change).
    private mutating func finished(_ row: OutboxRow, removed: Bool, delivered: Bool = false, failed: Bool = false) {
        guard let eventID = row.eventID else { return }
        var change = Tally()
        if removed { change.pushesPending = -1 }
        if delivered { change.pushesDelivered = 1 }
        if failed { change.pushesFailed = 1 }
        let owner = Owner(eventID: eventID, jobID: row.jobID)
        byOwner[owner] = (byOwner[owner] ?? Tally()) + change
    }

    var changes: [TallyChange] {
        byOwner.map { TallyChange(eventID: $0.key.eventID, jobID: $0.key.jobID, change: $0.value) }
            .sorted { ($0.eventID, $0.jobID ?? "") < ($1.eventID, $1.jobID ?? "") }
    }
}
