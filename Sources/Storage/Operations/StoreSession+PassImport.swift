public import Foundation
import PassIdentifiers

extension PassOperations {
    /// Rows per multi-row `INSERT` (17 bind parameters each; PostgreSQL allows 65,535 per statement,
    /// SQLite 32,766).
    static let importChunk = 1_000

    /// Issues many passes of one event in one transaction: all or none.
    ///
    /// A pass whose `externalID` the event already has is not inserted; the existing pass is
    /// returned with `created: false` (a re-upload of the same list issues nothing twice). Those
    /// passes are read first, in one query; the new ones share one new revision (they appear
    /// together) and are written with a few multi-row `INSERT … ON CONFLICT (event_id,
    /// external_id) DO NOTHING`, and the passes of any rows that still conflicted are read after.
    /// The event row is locked first, so imports into one event run one after the other. `.notFound` if the event does not exist; `.invalidValue` if
    /// two of `passes` have the same external id.
    public func importPasses(_ passes: [NewPass], eventID: String, now: Date) throws -> [ImportedPass] {
        try importPasses(passes, orders: [], eventID: eventID, now: now).passes
    }

    /// `importPasses(_:eventID:now:)` with orders: a pass whose `orderID` names one of `orders`
    /// is issued in that order. An order is looked up, and created when missing, only for new
    /// passes: the event's order whose external id or key is the `NewOrder`'s `externalID` is that
    /// order (the new passes join it; the `NewOrder`'s buyer is not used), so a re-upload makes no
    /// second order; otherwise the `NewOrder` is created with its id. The orders are read in one
    /// query and created with one multi-row `INSERT`, in the transaction of the passes.
    /// `.invalidValue` if two of `orders` have one id or one external id, or a pass names an order
    /// not given.
    public func importPasses(_ passes: [NewPass], orders: [NewOrder], eventID: String, now: Date) throws -> OrderedImport {
        var seen = Set<String>()
        for externalID in passes.compactMap(\.externalID) where !seen.insert(externalID).inserted {
            throw StorageError(.invalidValue, "two passes of one import have the same external id")
        }
        let given = Dictionary(orders.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let keys = orders.compactMap(\.externalID)
        guard given.count == orders.count, Set(keys).count == keys.count else {
            throw StorageError(.invalidValue, "two orders of one import have the same id or external id")
        }
        guard passes.allSatisfy({ $0.orderID.map { given[$0] != nil } ?? true }) else {
            throw StorageError(.invalidValue, "a pass names an order the import does not give")
        }
        return try transaction {
            guard try first("SELECT id FROM events WHERE id = \(eventID)\(unsafeRaw: forUpdate)") != nil else {
                throw StorageError(.notFound, "no such event")
            }
            guard !passes.isEmpty else { return OrderedImport(passes: [], orders: [:], createdOrders: []) }
            let revision = try nextRevision()
            // The passes the event has already, first: a re-upload finds every row here and writes
            // nothing, holding the write lock (SQLite's only one) for one lookup per row.
            var existing = try existingPasses(eventID: eventID, externalIDs: passes.compactMap(\.externalID))
            var new = passes.filter { pass in pass.externalID.map { existing[$0] == nil } ?? true }
            // The orders the new passes are issued in: the event's own of that id, or new.
            let wanted = Set(new.compactMap(\.orderID)).compactMap { given[$0] }.sorted { $0.id < $1.id }
            let found = try session.orders.ordersNamed(eventID: eventID, keys: wanted.compactMap(\.externalID))
            var stored: [String: StoredOrder] = [:]
            for order in wanted { stored[order.id] = order.externalID.flatMap { found[$0] } }
            let created = wanted.filter { stored[$0.id] == nil }
            for order in try session.orders.insertOrders(created, eventID: eventID, now: now) { stored[order.id] = order }
            for index in new.indices {
                guard let id = new[index].orderID, let order = stored[id] else { continue }
                new[index].orderID = order.id
            }
            var inserted: [SerialNumber: StoredPass] = [:]
            for start in stride(from: 0, to: new.count, by: Self.importChunk) {
                let chunk = new[start..<min(start + Self.importChunk, new.count)].map { pass in
                    var pass = pass
                    pass.eventID = eventID
                    return pass
                }
                for stored in try insert(chunk, revision: revision, now: now) {
                    inserted[stored.serialNumber] = stored
                }
            }
            // A pass given one of these ids since the lookup, by a writer that does not lock the event.
            let taken = new.filter { inserted[$0.serialNumber] == nil }.compactMap(\.externalID)
            if !taken.isEmpty {
                existing.merge(try existingPasses(eventID: eventID, externalIDs: taken)) { _, found in found }
            }
            let imported = try passes.map { pass in
                if let stored = inserted[pass.serialNumber] { return ImportedPass(pass: stored, created: true) }
                guard let externalID = pass.externalID, let found = existing[externalID] else {
                    throw StorageError(.backend, "an imported pass was neither inserted nor found")
                }
                return ImportedPass(pass: found, created: false)
            }
            return OrderedImport(passes: imported, orders: stored, createdOrders: Set(created.map(\.id)))
        }
    }

    /// The event's passes with these external ids, by external id, in one query: the ids travel
    /// as one JSON array parameter, so the statement is the same for any number of ids.
    func existingPasses(eventID: String, externalIDs: [String]) throws -> [String: StoredPass] {
        guard !externalIDs.isEmpty else { return [:] }
        var found: [String: StoredPass] = [:]
        for row in try execute(try existingPassesQuery(eventID: eventID, externalIDs: externalIDs)) {
            let pass = try StoredPass(row: row)
            if let externalID = pass.externalID { found[externalID] = pass }
        }
        return found
    }

    /// The statement of `existingPasses`: one lookup in the unique index on (event, external id)
    /// per wanted id, the ids as the outer loop. SQLite's planner, knowing neither how many ids
    /// the array holds nor how many passes the event has, would rather walk the event's passes and
    /// scan the whole array for each (10,000 ids against 40,000 passes: 21 s holding the write
    /// lock). `CROSS JOIN` makes SQLite keep the order written (PostgreSQL plans it as any inner
    /// join). `QueryPlanTests` pins the plan.
    func existingPassesQuery(eventID: String, externalIDs: [String]) throws -> SQLQuery {
        let list: String
        do {
            list = String(decoding: try JSONEncoder().encode(externalIDs), as: UTF8.self)
        } catch {
            throw StorageError(.invalidValue, "external ids cannot be encoded", underlying: error)
        }
        let ids: SQLQuery = dialect == .postgres
            ? "json_array_elements_text(CAST(\(list) AS json)) AS wanted (value)"
            : "json_each(\(list)) AS wanted"
        return """
            SELECT \(StoredPass.columns(prefix: "p")) FROM \(ids)
            CROSS JOIN passes p
            WHERE p.event_id = \(eventID) AND p.external_id = wanted.value
            """
    }

    /// One multi-row `INSERT`; returns the passes written (not those whose external id exists).
    private func insert(_ passes: [NewPass], revision: Int64, now: Date) throws -> [StoredPass] {
        let seconds = now.storageSeconds
        let millis = now.storageMillis
        var rows: [SQLQuery] = []
        rows.reserveCapacity(passes.count)
        for pass in passes {
            rows.append("""
                (\(pass.passTypeIdentifier), \(pass.serialNumber), \(pass.authenticationTokenHash), \(pass.downloadTokenHash),
                \(pass.eventID), \(pass.attendeeName), \(pass.attendeeEmail), \(pass.seat), \(pass.externalID),
                \(ExtraColumn.encode(pass.extra)), \(pass.searchText), \(pass.language), 'active', \(revision), \(seconds), \(millis),
                \(pass.orderID))
                """)
        }
        let ids = try execute("""
            INSERT INTO passes (pass_type_identifier, serial_number, authentication_token_hash, download_token_hash,
                event_id, attendee_name, attendee_email, seat, external_id, extra, search_text, language, status, revision, modified_at,
                created_at, order_id)
            VALUES \(SQLQuery.joined(rows, separator: ", "))
            ON CONFLICT (event_id, external_id) DO NOTHING
            RETURNING id, serial_number
            """)
        var idBySerial: [SerialNumber: Int64] = [:]
        for row in ids { idBySerial[SerialNumber(trusted: try row.string("serial_number"))] = try row.int64("id") }
        if !idBySerial.isEmpty {
            let ids = column("p.id", in: Array(idBySerial.values).sorted())
            try session.google.enqueueGoogleObjects(where: ids, notify: false, now: now)
            try session.webhooks.enqueueTicketWebhooks(.ticketIssued, where: ids, now: now)
        }
        return passes.compactMap { pass in
            idBySerial[pass.serialNumber].map { StoredPass(id: $0, inserted: pass, revision: revision, now: now) }
        }
    }
}
