public import Foundation
import PassIdentifiers

extension StoreSession {
    /// Rows per multi-row `INSERT` (16 bind parameters each; PostgreSQL allows 65,535 per statement,
    /// SQLite 32,766).
    static let importChunk = 1_000

    /// Issues many passes of one event in one transaction: all or none.
    ///
    /// A pass whose `externalID` the event already has is not inserted; the existing pass is
    /// returned with `created: false` (a re-upload of the same list issues nothing twice). New
    /// passes share one new revision (they appear together) and are written with a few multi-row
    /// `INSERT … ON CONFLICT (event_id, external_id) DO NOTHING`; the passes of the rows that
    /// conflicted are then read in one query. The event row is locked first, so imports into one
    /// event run one after the other. `.notFound` if the event does not exist; `.invalidValue` if
    /// two of `passes` have the same external id.
    public func importPasses(_ passes: [NewPass], eventID: String, now: Date) throws -> [ImportedPass] {
        var seen = Set<String>()
        for externalID in passes.compactMap(\.externalID) where !seen.insert(externalID).inserted {
            throw StorageError(.invalidValue, "two passes of one import have the same external id")
        }
        return try transaction {
            guard try first("SELECT id FROM events WHERE id = \(eventID)\(unsafeRaw: forUpdate)") != nil else {
                throw StorageError(.notFound, "no such event")
            }
            guard !passes.isEmpty else { return [] }
            let revision = try nextRevision()
            var inserted: [SerialNumber: StoredPass] = [:]
            for start in stride(from: 0, to: passes.count, by: Self.importChunk) {
                let chunk = passes[start..<min(start + Self.importChunk, passes.count)].map { pass in
                    var pass = pass
                    pass.eventID = eventID
                    return pass
                }
                for stored in try insert(chunk, revision: revision, now: now) {
                    inserted[stored.serialNumber] = stored
                }
            }
            let taken = passes.filter { inserted[$0.serialNumber] == nil }.compactMap(\.externalID)
            let existing = try existingPasses(eventID: eventID, externalIDs: taken)
            return try passes.map { pass in
                if let stored = inserted[pass.serialNumber] { return ImportedPass(pass: stored, created: true) }
                guard let externalID = pass.externalID, let found = existing[externalID] else {
                    throw StorageError(.backend, "an imported pass was neither inserted nor found")
                }
                return ImportedPass(pass: found, created: false)
            }
        }
    }

    /// The event's passes with these external ids, by external id, in one query: the ids travel
    /// as one JSON array parameter, so the statement (and PostgreSQL's plan for it, an index
    /// lookup per id) is the same for any number of ids.
    func existingPasses(eventID: String, externalIDs: [String]) throws -> [String: StoredPass] {
        guard !externalIDs.isEmpty else { return [:] }
        let list: String
        do {
            list = String(decoding: try JSONEncoder().encode(externalIDs), as: UTF8.self)
        } catch {
            throw StorageError(.invalidValue, "external ids cannot be encoded", underlying: error)
        }
        let ids: SQLQuery = dialect == .postgres
            ? "json_array_elements_text(CAST(\(list) AS json)) AS wanted (value)"
            : "json_each(\(list)) AS wanted"
        var found: [String: StoredPass] = [:]
        for row in try execute("""
            SELECT \(StoredPass.columns(prefix: "p")) FROM \(ids)
            JOIN passes p ON p.event_id = \(eventID) AND p.external_id = wanted.value
            """)
        {
            let pass = try StoredPass(row: row)
            if let externalID = pass.externalID { found[externalID] = pass }
        }
        return found
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
                \(ExtraColumn.encode(pass.extra)), \(pass.searchText), \(pass.language), 'active', \(revision), \(seconds), \(millis))
                """)
        }
        let ids = try execute("""
            INSERT INTO passes (pass_type_identifier, serial_number, authentication_token_hash, download_token_hash,
                event_id, attendee_name, attendee_email, seat, external_id, extra, search_text, language, status, revision, modified_at,
                created_at)
            VALUES \(SQLQuery.joined(rows, separator: ", "))
            ON CONFLICT (event_id, external_id) DO NOTHING
            RETURNING id, serial_number
            """)
        var idBySerial: [SerialNumber: Int64] = [:]
        for row in ids { idBySerial[SerialNumber(trusted: try row.string("serial_number"))] = try row.int64("id") }
        return passes.compactMap { pass in
            idBySerial[pass.serialNumber].map { StoredPass(id: $0, inserted: pass, revision: revision, now: now) }
        }
    }
}
