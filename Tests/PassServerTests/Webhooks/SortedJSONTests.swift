import Foundation
import PassIdentifiers
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// `SortedJSON` writes what the admin API's encoder (`JSONEncoder.api`) writes, byte for byte: a
/// ticket and an event as the admin API shows them (strings with quotes, backslashes, slashes,
/// control characters and other scripts in them), and nested objects, arrays, dictionaries,
/// optionals, booleans and integers.
@Suite("Webhooks: the bodies' JSON", .offCooperativePool, .timeLimit(.minutes(2)))
struct SortedJSONTests {
    static func same<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = String(decoding: try JSONEncoder.api.encode(value), as: UTF8.self)
        let written = String(decoding: try SortedJSON.encode(value), as: UTF8.self)
        #expect(written == expected, sourceLocation: sourceLocation)
    }

    struct Sample: Encodable {
        struct Inner: Encodable {
            var b: Bool
            var list: [Int]
            var note: String?
        }

        var zeta = "z"
        var alpha: Int64 = -42
        var nested = Inner(b: true, list: [3, 1, 2], note: nil)
        var items = [Inner(b: false, list: [], note: "a/b")]
        var map: [String: String] = ["b": "2", "a": "1", "B": "3", "a10": "x", "a9": "y", "_": "u"]
        var empty: [String: Int] = [:]
        var absent: String? = nil
        var text = "quote \" backslash \\ slash / tab \t newline \n return \r bell \u{07} nul \u{0} del \u{7F} é 東京 🎫 \u{2028}"
    }

    @Test("nested values, sorted keys and escapes as JSONEncoder.api writes them")
    func sample() throws {
        try Self.same(Sample())
        try Self.same(["k": [1, 2, 3]])
        try Self.same([Sample()])
        #expect(throws: SortedJSON.Unsupported.self) { try SortedJSON.encode(["x": 1.5]) }
    }

    @Test("a ticket and an event as the admin API shows them", arguments: [Backend.sqlite])
    func ticketAndEvent(_ backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        // Escaped for the JSON the helper writes it into: the name is `Swift "Night" / 東京`.
        let event = try app.createEvent(name: #"Swift \"Night\" / 東京"#)
        let response = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Ada","seat":"A/1","extra":{"ticketType":"VIP","gate":"North \"B\""}}"#)
        try #require(response.status == 201, "\(response.text)")
        let text = try #require(response.jsonObject?["serialNumber"] as? String)
        let serial = try #require(SerialNumber(text))
        // A name no request could set: control characters and an escape-worthy mix.
        _ = try app.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: app.passType, serialNumber: serial, change: PassChange(attendeeName: "A\u{1}d\\a\t\"L\" é 🎫"), now: Date())
        }
        let pass = try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: serial) })
        let stored = try #require(try app.store.withSession(.read) { try $0.events.event(id: event) })
        try Self.same(TicketBody(pass, downloadURL: try app.application.passes.downloadURL(for: pass)))
        try Self.same(EventBody(stored))
    }
}
