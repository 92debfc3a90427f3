import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// Helpers of the events-list, batch, search, archive and extras suites.
enum OrganizerSupport {
    /// A `Passes` directory with the default template; `noted-ticket`: the default plus a
    /// multiline `note` (shown on the back) and an integer `table` from 1 to 40; `seated-ticket`:
    /// the same pass with `table` required and `note`, `gate`, `ticketType` optional texts; `colour-ticket`: the
    /// background colour from an extra field.
    static func passesDirectory() throws -> String {
        let root = try TestCertificates.temporaryDirectory(prefix: "organizer-passes") + "/Passes"
        let manager = FileManager.default
        let original = PassServerExecutable.packageRoot.appendingPathComponent("Passes/event-ticket").path
        try manager.createDirectory(atPath: root, withIntermediateDirectories: true)
        try manager.copyItem(atPath: original, toPath: root + "/event-ticket")
        try manager.copyItem(atPath: original, toPath: root + "/noted-ticket")
        try """
            {"fields": [
              {"name": "ticketType", "type": "enum", "values": ["General", "VIP", "Student", "Staff"], "default": "General"},
              {"name": "gate", "type": "string", "maxLength": 16, "default": "ANY_GATE"},
              {"name": "note", "type": "string", "multiline": true, "maxLength": 300},
              {"name": "table", "type": "integer", "minimum": 1, "maximum": 40}
            ]}
            """.write(toFile: root + "/noted-ticket/fields.json", atomically: true, encoding: .utf8)
        var pass = try String(contentsOfFile: root + "/noted-ticket/pass.json", encoding: .utf8)
        pass = pass.replacingOccurrences(of: #""backFields": ["#, with: """
            "backFields": [
                  {"key": "note", "label": "HELP", "value": "{{extra.note}}"},
                  {"key": "table", "label": "SEAT", "value": "{{extra.table}}"},
            """)
        try pass.write(toFile: root + "/noted-ticket/pass.json", atomically: true, encoding: .utf8)
        // `seated-ticket`: a required table number.
        try manager.copyItem(atPath: root + "/noted-ticket", toPath: root + "/seated-ticket")
        try """
            {"fields": [{"name": "table", "type": "integer", "minimum": 1, "maximum": 40, "required": true},
                        {"name": "note", "type": "string"}, {"name": "gate", "type": "string"}, {"name": "ticketType", "type": "string"}]}
            """.write(toFile: root + "/seated-ticket/fields.json", atomically: true, encoding: .utf8)
        // `colour-ticket`: an extra value becomes the background colour, so a value that is not
        // `rgb(…)` makes a pass that cannot be built.
        try manager.copyItem(atPath: original, toPath: root + "/colour-ticket")
        try #"{"fields": [{"name": "colour", "type": "string", "maxLength": 32, "default": "rgb(0, 0, 0)"}]}"#
            .write(toFile: root + "/colour-ticket/fields.json", atomically: true, encoding: .utf8)
        let colourPass = try String(contentsOfFile: root + "/colour-ticket/pass.json", encoding: .utf8)
            .replacingOccurrences(of: #""backgroundColor": "rgb(28, 36, 64)""#, with: #""backgroundColor": "{{extra.colour}}""#)
            .replacingOccurrences(of: #""value": "{{extra.gate}}""#, with: #""value": "GENERAL_ADMISSION""#)
            .replacingOccurrences(of: #""value": "{{extra.ticketType}}""#, with: #""value": "GENERAL_ADMISSION""#)
        try colourPass.write(toFile: root + "/colour-ticket/pass.json", atomically: true, encoding: .utf8)
        return root
    }

    /// An app serving `passesDirectory()`.
    static func start(_ backend: Backend) throws -> TestApp {
        let passes = try passesDirectory()
        return try TestApp.start(backend) { $0.passesDirectory = passes }
    }

    /// Creates an event through the admin API; returns its id.
    static func createEvent(
        _ app: TestApp, name: String = "Swift Night", venue: String = "Tokyo Hall", startsAt: String = "2027-03-01T19:00:00+09:00",
        template: String = "event-ticket", sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let body: [String: Any] = [
            "name": name, "venue": venue, "startsAt": startsAt, "timeZone": "Asia/Tokyo", "template": template, "confirmPastStart": true,
        ]
        let response = try app.admin("POST", "/admin/v1/events", json: String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
        return try #require(response.jsonObject?["id"] as? String, "event not created: \(response.status) \(response.text)", sourceLocation: sourceLocation)
    }

    /// `POST …/tickets:batch` with a body of `contentType`.
    static func upload(_ app: TestApp, event: String, body: [UInt8], contentType: String = "text/csv") throws -> TestResponse {
        try TestClient(port: app.port, timeout: 120).request(
            "POST", "/admin/v1/events/\(event)/tickets:batch",
            headers: [("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", contentType)], body: body
        )
    }

    /// `value` as one CSV field: quoted (quotes doubled) when it holds a comma, quote or line break.
    static func csvField(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The event's ticket count, from `GET /admin/v1/events/{id}`.
    static func ticketCount(_ app: TestApp, event: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let counts = try app.admin("GET", "/admin/v1/events/\(event)").jsonObject?["counts"] as? [String: Any]
        return try #require(counts?["tickets"] as? Int, sourceLocation: sourceLocation)
    }

    /// Every element of `key` over all pages of a list (`path?limit=…&query`), following
    /// `nextCursor`; each page is checked to answer 200 and to hold at most `limit`.
    static func allPages(
        _ app: TestApp, _ path: String, key: String, query: String, limit: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [[String: Any]] {
        var items: [[String: Any]] = []
        var cursor: String?
        var pages = 0
        repeat {
            let target = "\(path)?limit=\(limit)" + (query.isEmpty ? "" : "&\(query)") + (cursor.map { "&cursor=\($0)" } ?? "")
            let response = try app.admin("GET", target)
            #expect(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
            let page = try #require(response.jsonObject, sourceLocation: sourceLocation)
            let found = page[key] as? [[String: Any]] ?? []
            #expect(found.count <= limit, sourceLocation: sourceLocation)
            items += found
            cursor = page["nextCursor"] as? String
            pages += 1
        } while cursor != nil && pages < 100
        return items
    }

    /// The `{"error": …}` object of a response.
    static func error(_ response: TestResponse) -> [String: Any]? {
        response.jsonObject?["error"] as? [String: Any]
    }
}
