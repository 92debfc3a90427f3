import Foundation
import PassServerTesting
@testable import Storage
import Testing

@Suite("Prepared statements", .offCooperativePool)
struct PreparedStatementTests {
    @Test func cacheEvictsTheLeastRecentlyUsed() {
        var cache = StatementCache<Int>(capacity: 2)
        #expect(cache.insert(1, for: "a") == nil)
        #expect(cache.insert(2, for: "b") == nil)
        #expect(cache.handle(for: "a") == 1)
        // "b" is now the least recently used.
        #expect(cache.insert(3, for: "c") == 2)
        #expect(cache.handle(for: "b") == nil)
        #expect(cache.count == 2)
        #expect(cache.insert(4, for: "a") == 1)
        #expect(cache.remove("c") == 3)
        #expect(cache.removeAll() == [4])
        #expect(cache.count == 0)
    }

    /// The statements this session has prepared whose text contains `marker`, with how often each ran.
    private func prepared(_ session: StoreSession, marker: String) throws -> [Int64] {
        try session.execute("""
            SELECT generic_plans + custom_plans AS runs FROM pg_prepared_statements
            WHERE statement LIKE '%' || \(marker) || '%' AND statement NOT LIKE '%pg_prepared_statements%'
            """).map { try $0.int64("runs") }
    }

    @Test func postgresPreparesEachStatementOncePerConnection() throws {
        let fixture = try StoreFixture(.postgres, options: StoreOptions(poolSize: 1))
        try fixture.makePass(serial: "P-1")
        try fixture.store.withSession(.read) { (session: StoreSession) throws -> Void in
            for _ in 0..<3 {
                #expect(try session.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "P-1")?.serialNumber == "P-1")
            }
            #expect(try session.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "none") == nil)
            // One server-side statement for the lookup, run four times with different values.
            #expect(try prepared(session, marker: "WHERE pass_type_identifier = $1 AND serial_number = $2") == [4])
        }
    }

    @Test func postgresCacheIsBounded() throws {
        let store = PostgresStore(url: try TestPostgres.adminURL(), options: StoreOptions(poolSize: 1))
        defer { store.close() }
        let total = PGConnection.statementCacheCapacity + 30
        try store.withSession(.read) { (session: StoreSession) throws -> Void in
            for index in 0..<total {
                let row = try #require(try session.execute(SQLQuery(unsafeRaw: "SELECT \(index)::int8 AS bounded_marker_\(index)")).first)
                #expect(try row.int64("bounded_marker_\(index)") == Int64(index))
            }
            let count = try #require(try session.execute("SELECT count(*) AS n FROM pg_prepared_statements").first).int("n")
            #expect(count <= PGConnection.statementCacheCapacity + 2)
            #expect(count >= PGConnection.statementCacheCapacity - 2)
        }
    }

    @Test(arguments: Backend.allCases)
    func cachedStatementsFollowSchemaChanges(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend, options: StoreOptions(poolSize: 1))
        let table = "schema_change_\(UUID().uuidString.prefix(8).lowercased())"
        try fixture.store.execute(SQLQuery(unsafeRaw: "CREATE TABLE \(table) (a BIGINT)"))
        try fixture.store.execute(SQLQuery(unsafeRaw: "INSERT INTO \(table) (a) VALUES (1)"))
        let select = SQLQuery(unsafeRaw: "SELECT * FROM \(table)")
        #expect(try fixture.store.execute(select).first?["b"] == nil)
        try fixture.store.execute(SQLQuery(unsafeRaw: "ALTER TABLE \(table) ADD COLUMN b BIGINT NOT NULL DEFAULT 7"))
        // The statement prepared before the change returns the new shape.
        let row = try #require(try fixture.store.execute(select).first)
        #expect(try row.int64("a") == 1)
        #expect(try row.int64("b") == 7)
    }

    @Test func postgresRecoversWhenTheServerForgetsItsStatements() throws {
        let fixture = try StoreFixture(.postgres, options: StoreOptions(poolSize: 1))
        try fixture.makePass(serial: "D-1")
        try fixture.store.withSession(.read) { (session: StoreSession) throws -> Void in
            #expect(try session.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "D-1") != nil)
            try session.execute("DEALLOCATE ALL")
            #expect(try session.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "D-1") != nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func statementsStayUsableAfterErrorsAndRollbacks(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend, options: StoreOptions(poolSize: 1))
        try fixture.makePass(serial: "E-1")
        // The same INSERT statement fails on a duplicate, then succeeds with other values.
        #expect(storageCode { try fixture.makePass(serial: "E-1") } == .conflict)
        try fixture.makePass(serial: "E-2")
        // A statement first prepared inside a transaction that rolls back is still usable after.
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try fixture.store.transaction { session in
                _ = try session.registrations.registrationCount(passTypeIdentifier: StoreFixture.passType, serialNumber: "E-1")
                throw Abort()
            }
        }
        #expect(try fixture.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: StoreFixture.passType, serialNumber: "E-1") } == 0)
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "E-2") } != nil)
    }
}
