public import Foundation

extension StoreSession {
    /// Rows per multi-row `INSERT` (15 bind parameters each; PostgreSQL allows 65,535 per statement,
    /// SQLite 32,766).
    static let importChunk = 1_000

    /// Issues many passes of one event in one transaction: all or none.
    ///
    /// A pass whose `externalID` the event already has is not inserted; the existing pass is
    /// returned with `created: false` (a re-upload of the same list issues nothing twice). New
    /// passes share one new revision (they appear together) and are written with a few multi-row
    /// `INSERT`s. The event row is locked first, so two imports into one event run one after the
    /// other and cannot both insert an external id. `.notFound` if the event does not exist;
    /// `.invalidValue` if two of `passes` have the same external id.
    public func importPasses(_ passes: [NewPass], eventID: String, now: Date) throws -> [ImportedPass] {
        var seen = Set<String>()
        for externalID in passes.compactMap(\.externalID) where !seen.insert(externalID).inserted {
            throw StorageError(.invalidValue, "two passes of one import have the same external id")
        }
        return try transaction {
            guard try first("SELECT id FROM events WHERE id = \(eventID)\(unsafeRaw: forUpdate)") != nil else {
                throw StorageError(.notFound, "no such event")
            }
            let existing = try existingPasses(eventID: eventID, externalIDs: Array(seen))
            var fresh: [NewPass] = []
            for var pass in passes where pass.externalID.map({ existing[$0] == nil }) ?? true {
                pass.eventID = eventID
                fresh.append(pass)
            }
            var inserted: [String: StoredPass] = [:]
            if !fresh.isEmpty {
                let revision = try nextRevision()
                for start in stride(from: 0, to: fresh.count, by: Self.importChunk) {
                    let chunk = fresh[start..<min(start + Self.importChunk, fresh.count)]
                    for stored in try insert(chunk, revision: revision, now: now) {
                        inserted[stored.serialNumber] = stored
                    }
                }
            }
            return try passes.map { pass in
                if let externalID = pass.externalID, let found = existing[externalID] { return ImportedPass(pass: found, created: false) }
                guard let stored = inserted[pass.serialNumber] else { throw StorageError(.backend, "an imported pass was not returned") }
                return ImportedPass(pass: stored, created: true)
            }
        }
    }

    /// The event's passes with these external ids, by external id.
    func existingPasses(eventID: String, externalIDs: [String]) throws -> [String: StoredPass] {
        var found: [String: StoredPass] = [:]
        for start in stride(from: 0, to: externalIDs.count, by: Self.importChunk) {
            let chunk = Array(externalIDs[start..<min(start + Self.importChunk, externalIDs.count)])
            for row in try execute("""
                SELECT \(StoredPass.columns) FROM passes WHERE event_id = \(eventID) AND external_id IN \(SQLQuery.list(chunk))
                """)
            {
                let pass = try StoredPass(row: row)
                if let externalID = pass.externalID { found[externalID] = pass }
            }
        }
        return found
    }

    /// One multi-row `INSERT` of new passes.
    private func insert(_ passes: ArraySlice<NewPass>, revision: Int64, now: Date) throws -> [StoredPass] {
        let seconds = now.storageSeconds
        let millis = now.storageMillis
        var rows: [SQLQuery] = []
        rows.reserveCapacity(passes.count)
        for pass in passes {
            rows.append("""
                (\(pass.passTypeIdentifier), \(pass.serialNumber), \(pass.authenticationTokenHash), \(pass.downloadTokenHash),
                \(pass.eventID), \(pass.attendeeName), \(pass.attendeeEmail), \(pass.seat), \(pass.externalID),
                \(try ExtraColumn.encode(pass.extra)), \(pass.searchText), 'active', \(revision), \(seconds), \(millis))
                """)
        }
        let ids = try execute("""
            INSERT INTO passes (pass_type_identifier, serial_number, authentication_token_hash, download_token_hash,
                event_id, attendee_name, attendee_email, seat, external_id, extra, search_text, status, revision, modified_at, created_at)
            VALUES \(SQLQuery.joined(rows, separator: ", "))
            RETURNING id, serial_number
            """)
        var idBySerial: [String: Int64] = [:]
        for row in ids { idBySerial[try row.string("serial_number")] = try row.int64("id") }
        return try passes.map { pass in
            guard let id = idBySerial[pass.serialNumber] else { throw StorageError(.backend, "an inserted pass was not returned") }
            return StoredPass(id: id, inserted: pass, revision: revision, now: now)
        }
    }
}
