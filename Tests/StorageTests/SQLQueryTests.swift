import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

@Suite("SQL queries", .offCooperativePool)
struct SQLQueryTests {
    @Test func valuesBecomeParameters() throws {
        let serial = "'; DROP TABLE passes; --"
        let limit = 5
        let query: SQLQuery = "SELECT * FROM passes WHERE serial_number = \(serial) AND event_id = \(String?.none) LIMIT \(limit)"
        #expect(query.description == "SELECT * FROM passes WHERE serial_number = $1 AND event_id = $2 LIMIT $3")
        #expect(!query.description.contains("DROP"))
        var composed = SQLQuery(unsafeRaw: "SELECT 1")
        composed.append(" WHERE x = \(42)")
        #expect(composed.description == "SELECT 1 WHERE x = $1")
        let list = SQLQuery.joined(["\(1)", "\(2)"], separator: ", ")
        let inList: SQLQuery = "IN (\(list))"
        #expect(inList.description == "IN ($1, $2)")
    }

    @Test(arguments: Backend.allCases)
    func placeholdersRoundTripOnBothBackends(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let rows = try fixture.store.execute("SELECT \("a'b") AS t, \(Int64(7)) AS i, \([UInt8]([0, 1])) AS b")
        let row = try #require(rows.first)
        #expect(try row.string("t") == "a'b")
        #expect(try row.int64("i") == 7)
        #expect(try row.bytes("b") == [0, 1])
        #expect(row["missing"] == nil)
        #expect(storageCode { _ = try row.int64("t") } == .backend)
    }

    @Test func storageErrorDescription() {
        let error = StorageError(.conflict, "row already exists", underlying: SQLiteError(code: 2067, message: "UNIQUE constraint failed: passes.serial_number"))
        #expect(error.description.contains("conflict"))
        #expect(StorageError.Code.allCases.count == 7)
    }
}

