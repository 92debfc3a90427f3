import Foundation
import Storage

/// Fills a database with many passes in one statement, for tests that measure the server at scale:
/// through the API 100,000 tickets would take minutes. The passes are real rows (the triggers of
/// the schema run), serials `<prefix><n>` and external ids `ext-<n>` for n in 1...count, with
/// random token hashes: no client can authenticate as one of them.
enum BulkPasses {
    /// Inserts `count` passes of `passType`, in `event` when given.
    static func insert(_ count: Int, passType: String, event: String?, serialPrefix: String = "BULK", into store: any Store) throws {
        let eventID: SQLQuery = event.map { "\($0)" } ?? "NULL"
        _ = try store.transaction { session in
            switch store.backend {
            case .sqlite:
                try session.execute("""
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
                    INSERT INTO passes (pass_type_identifier, serial_number, authentication_token_hash, download_token_hash,
                        event_id, attendee_name, external_id, revision, modified_at, created_at)
                    SELECT \(passType), \(serialPrefix) || i, randomblob(32), randomblob(32), \(eventID), 'Attendee ' || i, 'ext-' || i, 1, 0, 0 FROM n
                    """)
            case .postgres:
                try session.execute("""
                    INSERT INTO passes (pass_type_identifier, serial_number, authentication_token_hash, download_token_hash,
                        event_id, attendee_name, external_id, revision, modified_at, created_at)
                    SELECT \(passType), \(serialPrefix) || i, sha256(('a' || i || \(serialPrefix))::bytea), sha256(('d' || i || \(serialPrefix))::bytea),
                        \(eventID), 'Attendee ' || i, 'ext-' || i, 1, 0, 0 FROM generate_series(1, \(count)) AS i
                    """)
            }
        }
    }
}
