public import Foundation

// Leases name work that one process at a time may do while several share the database (the
// retention sweep). A lease is a row with a holder and an expiry: a holder that dies leaves it to
// expire, and any process may then take it. Works the same on both backends and holds no
// connection or lock between calls.
extension LeaseOperations {
    /// Takes the lease `name` for `holder` until `now + duration`, or extends it if `holder`
    /// already has it. Returns false while another holder's lease has not expired.
    public func acquireLease(_ name: String, holder: String, now: Date, duration: Duration) throws -> Bool {
        let until = now.storageMillis + duration.milliseconds
        return try !execute("""
            INSERT INTO leases (name, holder, expires_at) VALUES (\(name), \(holder), \(until))
            ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
            WHERE leases.holder = excluded.holder OR leases.expires_at <= \(now.storageMillis)
            RETURNING holder
            """).isEmpty
    }

    /// Gives the lease back if `holder` has it.
    public func releaseLease(_ name: String, holder: String) throws {
        try execute("DELETE FROM leases WHERE name = \(name) AND holder = \(holder)")
    }
}
