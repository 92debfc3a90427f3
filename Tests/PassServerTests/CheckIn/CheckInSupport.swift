import PassIdentifiers
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Scanning helpers shared by the check-in tests.
struct Scanner {
    let app: TestApp
    let token: String

    /// A scanner token stored in `app`'s database.
    init(_ app: TestApp) throws {
        self.app = app
        token = try AdminRoleTests.token(app, role: .scanner)
    }

    var headers: [(String, String)] { [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")] }

    /// The signed barcode message of a ticket, as its pass carries it.
    func code(_ serial: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let passType = try #require(PassTypeIdentifier(app.passTypeIdentifier), sourceLocation: sourceLocation)
        let serialNumber = try #require(SerialNumber(serial), "\(serial) is a serial number", sourceLocation: sourceLocation)
        return try app.application.passes.vault.barcode(passType: passType, serial: serialNumber).message
    }

    /// `POST /admin/v1/checkins`.
    func scan(_ code: String, gate: String? = nil, at time: String? = nil, event: String? = nil) throws -> TestResponse {
        var fields = [#""code":\#(Self.quoted(code))"#]
        if let event { fields.append(#""eventId":\#(Self.quoted(event))"#) }
        if let gate { fields.append(#""gate":\#(Self.quoted(gate))"#) }
        if let time { fields.append(#""scannedAt":"\#(time)""#) }
        return try app.request("POST", "/admin/v1/checkins", headers: headers, body: Array("{\(fields.joined(separator: ","))}".utf8))
    }

    /// The check code printed under a ticket's barcode (`XXXX-XXXX`).
    func checkCode(_ serial: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let passType = try #require(PassTypeIdentifier(app.passTypeIdentifier), sourceLocation: sourceLocation)
        let serialNumber = try #require(SerialNumber(serial), "\(serial) is a serial number", sourceLocation: sourceLocation)
        return try app.application.passes.vault.checkCode(passType: passType, serial: serialNumber)
    }

    /// `POST /admin/v1/checkins:batch` of `(code, gate, scannedAt)` scans.
    func batch(_ scans: [(code: String, gate: String, at: Date)]) throws -> TestResponse {
        let items = scans.map { #"{"code":\#(Self.quoted($0.code)),"gate":\#(Self.quoted($0.gate)),"scannedAt":"\#(ISODate.format($0.at))"}"# }
        return try app.request("POST", "/admin/v1/checkins:batch", headers: headers, body: Array(#"{"scans":[\#(items.joined(separator: ","))]}"#.utf8))
    }

    /// Moves the database's past `seconds` back: every pass was issued, and the schema migrated,
    /// that much earlier (tickets issued before the door opens, after barcodes were signed), so
    /// scans dated up to then fall after their tickets' issue.
    static func backdate(_ app: TestApp, by seconds: TimeInterval) throws {
        let millis = Int64(seconds * 1_000)
        _ = try app.store.execute("UPDATE passes SET created_at = created_at - \(millis)")
        _ = try app.store.execute("UPDATE schema_migrations SET applied_at = applied_at - \(millis)")
    }

    /// Makes `serial` a ticket issued before barcodes were signed: created a day before the
    /// check-in migration was applied.
    static func makeLegacy(_ app: TestApp, _ serial: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let applied = try #require(
            try app.store.execute("SELECT applied_at FROM schema_migrations WHERE version = 10").first?.int64("applied_at"),
            sourceLocation: sourceLocation
        )
        _ = try app.store.execute("UPDATE passes SET created_at = \(applied - 86_400_000) WHERE serial_number = \(serial)")
    }

    static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }

    /// Issues `count` tickets in one import; returns their serials in order.
    static func issue(_ count: Int, app: TestApp, event: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let body = "[" + (0..<count).map { #"{"attendeeName":"Guest \#($0)","seat":"S\#($0)"}"# }.joined(separator: ",") + "]"
        let imported = try app.request(
            "POST", "/admin/v1/events/\(event)/tickets:batch",
            headers: [("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", "application/json")], body: Array(body.utf8)
        )
        let entries = try #require(
            imported.jsonObject?["tickets"] as? [[String: Any]], "import answered \(imported.status) \(imported.text.prefix(300))",
            sourceLocation: sourceLocation
        )
        return entries.compactMap { $0["serialNumber"] as? String }
    }
}
