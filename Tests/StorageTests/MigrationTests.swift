import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

@Suite("Migrations", .offCooperativePool, .timeLimit(.minutes(3)))
struct MigrationTests {
    /// The versions recorded in `schema_migrations`, ascending.
    static func versions(_ store: any Store) throws -> [Int] {
        try store.execute("SELECT version FROM schema_migrations ORDER BY version").map { try $0.int("version") }
    }

    @Test(arguments: Backend.allCases)
    func migratingTwiceIsANoOp(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.makePass(serial: "keep")
        try fixture.store.migrate()
        try fixture.store.migrate()
        #expect(try Self.versions(fixture.store) == [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25])
        #expect(try fixture.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: StoreFixture.passType, serialNumber: "keep") } != nil)
    }

    @Test(arguments: Backend.allCases)
    func concurrentMigrationsFromTwoStoresBothSucceed(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend, migrate: false)
        let stores = [fixture.store, try fixture.reopen()]
        try onThreads(2) { index in try stores[index].migrate() }
        #expect(try Self.versions(stores[1]) == [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25])
        let pass = try fixture.makePass(serial: "after")
        #expect(pass.revision == 1)
        stores[1].close()
    }

    /// A pending push row is written to the indexes that claim and deduplicate it and no others:
    /// retention reads failed rows only, and the metrics read the oldest pending push from the table.
    @Test(arguments: Backend.allCases)
    func pendingOutboxRowsPayForThreeIndexes(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let query: SQLQuery = switch backend {
        case .postgres: "SELECT indexname AS name FROM pg_indexes WHERE tablename = 'push_outbox'"
        case .sqlite: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'push_outbox' AND name NOT LIKE 'sqlite_autoindex%'"
        }
        let names = Set(try fixture.store.execute(query).map { try $0.string("name") })
        let expected: Set<String> = switch backend {
        case .postgres: ["push_outbox_pkey", "push_outbox_push_token_pass_type_identifier_key", "push_outbox_ready", "push_outbox_failed"]
        case .sqlite: ["push_outbox_ready", "push_outbox_failed"]
        }
        #expect(names == expected)
    }

    @Test func openRejectsUnknownURLs() throws {
        #expect(storageCode { _ = try openStore(url: "mysql://localhost/db") } == .invalidValue)
        #expect(storageCode { _ = try openStore(url: "sqlite://") } == .invalidValue)
        let relative = "sqlite://.build/storage-tests-\(UUID().uuidString)/a/b.db"
        let store = try openStore(url: relative)
        #expect(store.backend == .sqlite)
        try store.migrate()
        try store.ping()
        store.close()
        try? FileManager.default.removeItem(atPath: String(relative.dropFirst("sqlite://".count).split(separator: "/").prefix(2).joined(separator: "/")))
        #expect(try openStore(url: "postgresql://user@127.0.0.1:1/db").backend == .postgres)
    }
}
