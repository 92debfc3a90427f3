import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// An event with tickets of several types, some on phones, some checked in at gates at known
/// times: what the attendance tests count, each number computed here from what was done.
struct AttendanceFixture {
    let app: TestApp
    let event: String
    let scanner: Scanner
    /// The scanner token's name, which a check-in records.
    let scannerName: String
    /// Serial → ticket type, in issue order.
    let tickets: [(serial: String, type: String)]
    /// The check-ins made: serial → (time, gate).
    var checkIns: [String: (at: Date, gate: String)] = [:]
    /// The serial cancelled (after it was checked in).
    var cancelled: String?
    /// Serial → when a phone first added it (as set in the database).
    var walletAdds: [String: Date] = [:]

    static let types = ["General", "VIP", "Student"]

    /// `count` tickets, types round-robin, issued one an hour, the last an hour ago (their
    /// `created_at` set in the database).
    init(
        _ backend: Backend, tickets count: Int = 9, sourceLocation: SourceLocation = #_sourceLocation,
        configure: (inout Configuration) -> Void = { _ in }
    ) throws {
        app = try TestApp.start(backend, configure: configure)
        event = try app.createEvent(name: "Attendance <Night>")
        let body = "[" + (0..<count).map { #"{"attendeeName":"Guest \#($0)","extra":{"ticketType":"\#(Self.types[$0 % Self.types.count])"}}"# }
            .joined(separator: ",") + "]"
        let imported = try app.admin("POST", "/admin/v1/events/\(event)/tickets:batch", json: body)
        let entries = try #require(imported.jsonObject?["tickets"] as? [[String: Any]], "\(imported.status) \(imported.text.prefix(300))", sourceLocation: sourceLocation)
        let serials = entries.compactMap { $0["serialNumber"] as? String }
        try #require(serials.count == count, sourceLocation: sourceLocation)
        tickets = serials.enumerated().map { ($1, Self.types[$0 % Self.types.count]) }
        // Issued one hour apart, the last an hour ago: scans dated after that fall after their issue.
        let now = Date()
        for (index, serial) in serials.enumerated() {
            let created = Int64((now.timeIntervalSince1970 - Double(count - index) * 3_600) * 1_000)
            _ = try app.store.execute("UPDATE passes SET created_at = \(created) WHERE serial_number = \(serial)")
        }
        _ = try app.store.execute("UPDATE schema_migrations SET applied_at = applied_at - \(Int64(Double(count + 1) * 3_600_000))")
        scanner = try Scanner(app)
        scannerName = try #require(
            try app.store.execute("SELECT name FROM admin_tokens WHERE role = 'scanner'").first?.string("name"), sourceLocation: sourceLocation
        )
    }

    func stop() { app.stop() }

    /// Checks `serial` in at `gate`, scanned `minutesAgo` minutes ago.
    mutating func checkIn(_ serial: String, gate: String, minutesAgo: Double, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let at = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - minutesAgo * 60).rounded(.down))
        let response = try scanner.scan(try scanner.code(serial), gate: gate, at: ISODate.format(at))
        #expect(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.jsonObject?["scannedAtAdjusted"] == nil, "\(response.text)", sourceLocation: sourceLocation)
        checkIns[serial] = (at, gate)
    }

    /// A phone adds `serial` (the pass's first Wallet add, set by the database as it registers,
    /// then dated `minutesAgo` minutes ago), and a second phone adds it later, which changes
    /// nothing: the first add is what counts.
    mutating func addToWallet(_ serial: String, minutesAgo: Double, sourceLocation: SourceLocation = #_sourceLocation) throws {
        func added() throws -> Int64? {
            try app.store.execute("SELECT wallet_added_at FROM passes WHERE serial_number = \(serial)").first?.optionalInt64("wallet_added_at")
        }
        #expect(try added() == nil, "not on a phone yet", sourceLocation: sourceLocation)
        let before = Int64(Date().timeIntervalSince1970 * 1_000) - 1_000
        #expect(try Phone(app: app).register(serial).status == 201, sourceLocation: sourceLocation)
        let recorded = try #require(try added(), "the first registration sets it", sourceLocation: sourceLocation)
        #expect(recorded >= before && recorded <= Int64(Date().timeIntervalSince1970 * 1_000) + 1_000, sourceLocation: sourceLocation)
        let at = Int64((Date().timeIntervalSince1970 - minutesAgo * 60) * 1_000)
        _ = try app.store.execute("UPDATE passes SET wallet_added_at = \(at) WHERE serial_number = \(serial)")
        #expect(try Phone(app: app).register(serial).status == 201, sourceLocation: sourceLocation)
        #expect(try added() == at, "a second phone is not a first add", sourceLocation: sourceLocation)
        walletAdds[serial] = Date(timeIntervalSince1970: Double(at) / 1_000)
    }

    /// A dashboard session of a new token of `role`.
    func dashboard(_ role: AdminRole) throws -> DashboardClient {
        try DashboardClient.signIn(app, token: role == .admin ? app.adminToken : try AdminRoleTests.token(app, role: role)).0
    }

    // MARK: Reading pages

    /// The rows of the table `id` in `html`: each row's cells as text (tags stripped, entities decoded).
    static func tableRows(_ id: String, in html: String) -> [[String]] {
        guard let start = html.range(of: #"id="\#(id)""#), let end = html.range(of: "</table>", range: start.upperBound..<html.endIndex) else { return [] }
        let table = String(html[start.upperBound..<end.lowerBound])
        guard let body = table.range(of: "<tbody>") else { return [] }
        return table[body.upperBound...].components(separatedBy: "<tr>").dropFirst().map { row in
            row.matches(of: /<t[hd][^>]*>(.*?)<\/t[hd]>/.dotMatchesNewlines()).map { text(String($0.1)) }
        }
    }

    /// Markup as the text a reader sees.
    static func text(_ markup: String) -> String {
        markup.replacing(/<[^>]+>/, with: "").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The `data-value` of every bar in the figure `id`, in order.
    static func barValues(_ id: String, in html: String) -> [Int] {
        guard let start = html.range(of: #"<figure class="plot" id="\#(id)">"#),
              let end = html.range(of: "</svg>", range: start.upperBound..<html.endIndex)
        else { return [] }
        return html[start.upperBound..<end.lowerBound].matches(of: /data-value="(\d+)"/).compactMap { Int($0.1) }
    }

    /// A number as the page writes it (`1,234`).
    static func number(_ text: String) -> Int? { Int(text.replacingOccurrences(of: ",", with: "")) }

    /// `date` as the page labels a bucket in the event's zone (`2027-03-01 19:15`).
    static func label(_ date: Date, zone: String = "Asia/Tokyo") -> String {
        DashboardLayout.localInput(date, timeZone: zone).replacingOccurrences(of: "T", with: " ")
    }
}
