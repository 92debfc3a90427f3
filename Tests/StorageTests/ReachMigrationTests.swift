import Foundation
import PassIdentifiers
import PassServerTesting
import Testing

@testable import Storage

/// Migration 7 on a database an older release filled: what it derives from existing rows.
@Suite("Migration 7: reach, tallies, token roles", .offCooperativePool)
struct ReachMigrationTests {
    @Test("existing passes, registrations and tokens are carried over", arguments: Backend.allCases)
    func carriesExistingRowsOver(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend, migrate: false)
        try fixture.store.withSession(.write) { try $0.migrate(through: 3) }
        let store = fixture.store
        try store.execute("""
            INSERT INTO events (id, name, venue, starts_at, time_zone, template, revision, created_at, updated_at)
            VALUES ('old-event', 'Old', 'Hall', 0, 'UTC', 'event-ticket', 1, 0, 0)
            """)
        for (index, status) in ["active", "voided", "active"].enumerated() {
            try store.execute("""
                INSERT INTO passes (pass_type_identifier, serial_number, authentication_token_hash, download_token_hash, event_id,
                    attendee_name, status, revision, modified_at, created_at)
                VALUES ('pt', \("S\(index)"), \([UInt8(index)]), \([UInt8(100 + index)]), 'old-event', 'A', \(status), \(Int64(10 + index)), 0, 0)
                """)
        }
        try store.execute("INSERT INTO devices (device_library_identifier, push_token, updated_at) VALUES ('d1', 'tok', 0), ('d2', 'tok2', 0)")
        try store.execute("""
            INSERT INTO registrations (device_library_identifier, pass_type_identifier, serial_number, created_at, updated_at)
            VALUES ('d1', 'pt', 'S0', 0, 0), ('d2', 'pt', 'S1', 0, 0), ('d2', 'pt', 'S2', 0, 0)
            """)
        // Three active tokens named "ci" (an old release allowed it) and one revoked.
        for (index, revoked) in [false, false, true, false].enumerated() {
            try store.execute("""
                INSERT INTO admin_tokens (name, token_hash, created_at, revoked_at) VALUES ('ci', \([UInt8(index)]), 0, \(revoked ? Int64(1) : nil))
                """)
        }

        try store.migrate()

        let registration = try #require(try store.execute("""
            SELECT pass_id, event_id, pass_revision, told_revision FROM registrations WHERE serial_number = 'S2'
            """).first)
        #expect(try registration.optionalString("event_id") == "old-event")
        #expect(try registration.optionalInt64("pass_revision") == 12)
        #expect(try registration.optionalInt64("told_revision") == nil, "no phone has been told anything yet")
        let pass = try #require(try store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: PassTypeIdentifier(trusted: "pt"), serialNumber: "S2") })
        #expect(try registration.optionalInt64("pass_id") == pass.id)
        let tally = try store.withSession(.read) { try $0.reach.eventTally(eventID: "old-event") }.total
        #expect(tally == Tally(tickets: 3, cancelled: 1, registeredDevices: 2, devices: 3))

        let tokens = try store.withSession(.read) { try $0.admin.adminTokens() }
        #expect(tokens.allSatisfy { $0.role == .admin })
        #expect(tokens.map(\.name) == ["ci (token 1)", "ci (token 2)", "ci", "ci"], "the newest active token keeps the name")
        #expect(tokens.filter { $0.revokedAt == nil }.count == 3, "no token stopped working")
        #expect(storageCode { _ = try store.withSession(.write) { try $0.admin.createAdminToken(name: "ci", tokenHash: [42], now: Date()) } } == .conflict)
        #expect(try store.withSession(.write) { try $0.admin.revokeAdminToken(idOrName: "ci", now: Date()) } == 1)
        #expect(try store.withSession(.write) { try $0.admin.createAdminToken(name: "ci", tokenHash: [42], now: Date()) }.name == "ci", "a revoked token's name is free again")
    }

    @Test("token roles are stored, and revoking by a numeric name or an id takes one token", arguments: Backend.allCases)
    func rolesAndRevocation(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let viewer = try fixture.store.withSession(.write) { try $0.admin.createAdminToken(name: "board", role: .viewer, tokenHash: [1], now: Date()) }
        let scanner = try fixture.store.withSession(.write) { try $0.admin.createAdminToken(name: "gate", role: .scanner, tokenHash: [2], now: Date()) }
        #expect(try fixture.store.withSession(.read) { try $0.admin.adminToken(tokenHash: [1]) }?.role == .viewer)
        #expect(try fixture.store.withSession(.read) { try $0.admin.adminToken(tokenHash: [2]) }?.role == .scanner)
        // A token whose name is another token's id: the id wins, and only one token is revoked.
        let numeric = try fixture.store.withSession(.write) { try $0.admin.createAdminToken(name: String(scanner.id), tokenHash: [3], now: Date()) }
        #expect(try fixture.store.withSession(.write) { try $0.admin.revokeAdminToken(idOrName: String(scanner.id), now: Date()) } == 1)
        #expect(try fixture.store.withSession(.read) { try $0.admin.adminToken(tokenHash: [2]) } == nil)
        #expect(try fixture.store.withSession(.read) { try $0.admin.adminToken(tokenHash: [3]) } == numeric)
        #expect(try fixture.store.withSession(.write) { try $0.admin.revokeAdminToken(idOrName: "board", now: Date()) } == 1)
        #expect(try fixture.store.withSession(.read) { try $0.admin.adminToken(tokenHash: [1]) } == nil)
        #expect(viewer.role == .viewer)
    }
}
