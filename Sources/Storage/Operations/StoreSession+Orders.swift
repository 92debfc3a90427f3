public import Foundation

// Orders (migration 25): tickets issued together for one buyer. An order is created with its
// first tickets by `importPasses(_:orders:eventID:now:)`, under the event's row lock; its tickets
// name it in `passes.order_id` and never change order. Its email is queued and recorded with the
// other emails (StoreSession+Mail.swift).

extension OrderOperations {
    /// The event's order this text names: the one whose external id it is, else the one whose
    /// key it is (how an upload's `orderId` names an order).
    public func order(eventID: String, named key: String) throws -> StoredOrder? {
        try ordersNamed(eventID: eventID, keys: [key])[key]
    }

    /// The order with this key.
    public func order(id: String) throws -> StoredOrder? {
        try first("SELECT \(StoredOrder.columns) FROM orders WHERE id = \(id)").map(StoredOrder.init(row:))
    }

    /// The order whose page token hashes to `tokenHash`.
    public func order(tokenHash: [UInt8]) throws -> StoredOrder? {
        try first("SELECT \(StoredOrder.columns) FROM orders WHERE token_hash = \(tokenHash)").map(StoredOrder.init(row:))
    }

    /// These orders, by key. One statement.
    public func orders(ids: [String]) throws -> [String: StoredOrder] {
        guard !ids.isEmpty else { return [:] }
        var orders: [String: StoredOrder] = [:]
        for row in try execute("SELECT \(StoredOrder.columns) FROM orders WHERE \(textColumn("id", in: ids))") {
            let order = try StoredOrder(row: row)
            orders[order.id] = order
        }
        return orders
    }

    /// The order's tickets in issue order (an index range of `passes_order`).
    public func passes(orderID: String) throws -> [StoredPass] {
        try execute("SELECT \(StoredPass.columns) FROM passes WHERE order_id = \(orderID) ORDER BY id").map(StoredPass.init(row:))
    }

    /// One page of the event's orders, oldest first, after the order `after` (its creation time
    /// in milliseconds and its key), each with how many tickets it holds: two statements whatever
    /// the page's size.
    public func orders(eventID: String, after: (createdAtMillis: Int64, id: String)? = nil, limit: Int) throws -> [OrderSummary] {
        let position: SQLQuery = after.map { after in
            " AND (created_at > \(after.createdAtMillis) OR (created_at = \(after.createdAtMillis) AND id > \(after.id)))"
        } ?? ""
        let orders = try execute("""
            SELECT \(StoredOrder.columns) FROM orders WHERE event_id = \(eventID)\(position)
            ORDER BY created_at, id LIMIT \(limit)
            """).map(StoredOrder.init(row:))
        guard !orders.isEmpty else { return [] }
        var counts: [String: (tickets: Int, active: Int)] = [:]
        for row in try execute("""
            SELECT order_id, count(*) AS tickets, sum(CASE WHEN status = 'active' THEN 1 ELSE 0 END) AS active
            FROM passes WHERE \(textColumn("order_id", in: orders.map(\.id))) GROUP BY order_id
            """) {
            counts[try row.string("order_id")] = (try row.int("tickets"), try row.int("active"))
        }
        return orders.map { OrderSummary(order: $0, tickets: counts[$0.id]?.tickets ?? 0, active: counts[$0.id]?.active ?? 0) }
    }

    /// Creates `order` with `passes` (each naming it) in one transaction, unless the event has an
    /// order its `externalID` names already: then nothing is written and that order is returned
    /// with its tickets (`created` false), so a retried request never issues twice. The event row
    /// is locked first, so two such requests run one after the other. `.notFound` if the event
    /// does not exist; `.conflict` (nothing written) if every pass's external id is the event's already.
    public func createOrder(_ order: NewOrder, passes: [NewPass], eventID: String, now: Date) throws -> (order: StoredOrder, passes: [ImportedPass], created: Bool) {
        try transaction {
            guard try first("SELECT id FROM events WHERE id = \(eventID)\(unsafeRaw: forUpdate)") != nil else {
                throw StorageError(.notFound, "no such event")
            }
            if let key = order.externalID, let existing = try self.order(eventID: eventID, named: key) {
                return (existing, try self.passes(orderID: existing.id).map { ImportedPass(pass: $0, created: false) }, false)
            }
            let imported = try session.passes.importPasses(passes, orders: [order], eventID: eventID, now: now)
            // Every pass had an external id the event has: nothing new to make an order of.
            guard let stored = imported.orders[order.id] else { throw StorageError(.conflict, "every pass of the order exists already") }
            return (stored, imported.passes, true)
        }
    }

    /// The event's orders these texts name, by text: an order whose external id it is, else the
    /// one whose key it is. One query whatever the number of texts.
    func ordersNamed(eventID: String, keys: [String]) throws -> [String: StoredOrder] {
        guard !keys.isEmpty else { return [:] }
        var byExternalID: [String: StoredOrder] = [:]
        var byID: [String: StoredOrder] = [:]
        for row in try execute("""
            SELECT \(StoredOrder.columns) FROM orders
            WHERE event_id = \(eventID) AND (\(textColumn("external_id", in: keys)) OR \(textColumn("id", in: keys)))
            """) {
            let order = try StoredOrder(row: row)
            if let externalID = order.externalID { byExternalID[externalID] = order }
            byID[order.id] = order
        }
        var found: [String: StoredOrder] = [:]
        for key in keys {
            if let order = byExternalID[key] ?? byID[key] { found[key] = order }
        }
        return found
    }

    /// Creates `orders` for the event with one multi-row `INSERT`; returns them as stored.
    func insertOrders(_ orders: [NewOrder], eventID: String, now: Date) throws -> [StoredOrder] {
        var stored: [StoredOrder] = []
        // Eight parameters a row: far below either backend's limit per statement.
        for start in stride(from: 0, to: orders.count, by: PassOperations.importChunk) {
            let rows: [SQLQuery] = orders[start..<min(start + PassOperations.importChunk, orders.count)].map { order in
                """
                (\(order.id), \(eventID), \(order.externalID), \(order.buyerEmail), \(order.buyerName), \(order.language), \(order.tokenHash),
                \(now.storageMillis))
                """
            }
            stored += try execute("""
                INSERT INTO orders (id, event_id, external_id, buyer_email, buyer_name, language, token_hash, created_at)
                VALUES \(SQLQuery.joined(rows, separator: ", "))
                RETURNING \(StoredOrder.columns)
                """).map(StoredOrder.init(row:))
        }
        return stored
    }
}
