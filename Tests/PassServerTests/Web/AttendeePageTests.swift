import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// `GET /download/{token}` over HTTP: browsers get the ticket page, Wallet and everything else the
/// pass, exactly as before the page existed.
@Suite("Web: the attendee's page over HTTP", .offCooperativePool, .timeLimit(.minutes(3)))
struct AttendeePageTests {
    static let browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

    /// An app with one event and one ticket; returns its serial and download path.
    static func ticket(_ app: TestApp, attendee: String = "Ada Lovelace", seat: String? = "A1") throws -> (serial: String, path: String) {
        let serial = try app.issueTicket(event: try app.createEvent(name: "Swift Night", venue: "Tokyo Hall"), attendee: attendee, seat: seat)
        let path = try AdminSupport.path(of: try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["downloadURL"] as? String)
        return (serial, path)
    }

    @Test("browsers get the page; Wallet, curl, */*, no Accept and ?format=pkpass get the pass as before", arguments: Backend.allCases)
    func negotiation(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        let (serial, path) = try Self.ticket(app)

        let page = try await app.requestOffPool("GET", path, headers: [("Accept", Self.browserAccept)])
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        expectSecurityHeaders(page, "the ticket page")
        #expect(page.header("Vary")?.contains("Accept") == true)
        #expect(page.header("X-Robots-Tag") == "noindex, nofollow")
        #expect(page.text.contains("Swift Night") && page.text.contains("Ada Lovelace") && page.text.contains("Tokyo Hall"))
        #expect(page.text.contains(#"href="?format=pkpass""#), "the button links the pass, relative to the page")
        #expect(!page.text.contains(String(path.dropFirst("/download/".count))), "the page holds no token")
        #expect(page.text.contains(#"<figure class="qr"><svg"#), "the code to show at the door")
        #expect(page.text.contains(#"id="ticket-band""#), "the band in the pass's colours")

        let original = try await app.requestOffPool("GET", path)
        for accept in [nil, "*/*", "application/vnd.apple.pkpass", "application/vnd.apple.pkpass, */*;q=0.8", "text/html;q=0.5, application/vnd.apple.pkpass",
                       "text/html;q=0.9, */*"] {
            let headers = accept.map { [("Accept", $0)] } ?? []
            let file = try await app.requestOffPool("GET", path, headers: headers)
            #expect(file.status == 200, "Accept: \(accept ?? "none")")
            #expect(file.header("Content-Type") == "application/vnd.apple.pkpass", "Accept: \(accept ?? "none")")
            #expect(file.header("Content-Disposition") == "attachment; filename=ticket.pkpass")
            #expect(file.header("Last-Modified") == original.header("Last-Modified") && file.header("Last-Modified") != nil)
            #expect(file.header("Cache-Control") == "private, no-store")
            #expect(try PassArchive.passJSON(file.body)["serialNumber"] as? String == serial)
        }
        let button = try await app.requestOffPool("GET", path + "?format=pkpass", headers: [("Accept", Self.browserAccept)])
        #expect(button.header("Content-Type") == "application/vnd.apple.pkpass", "the button's link downloads the pass from a browser")
        #expect(try PassArchive.passJSON(button.body)["serialNumber"] as? String == serial)
        let forced = try await app.requestOffPool("GET", path + "?format=html")
        #expect(forced.header("Content-Type") == "text/html; charset=utf-8", "?format=html asks for the page whatever Accept says")

        let bad = try await app.requestOffPool("GET", path + "?format=zip", headers: [("Accept", Self.browserAccept)])
        #expect(bad.status == 400)
        #expect(bad.errorCode == "invalid_format")
    }

    @Test("an unknown link: 404 as a page for browsers, as JSON for the rest", arguments: Backend.allCases)
    func unknownToken(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        _ = try Self.ticket(app)
        for path in ["/download/" + String(repeating: "x", count: 43), "/download/short", "/download/" + String(repeating: "y", count: 200)] {
            let page = try await app.requestOffPool("GET", path, headers: [("Accept", Self.browserAccept), ("Accept-Language", "ja")])
            #expect(page.status == 404, "\(path)")
            expectSecurityHeaders(page, "the 404 page")
            #expect(page.text.contains("チケットが見つかりません"))
            let json = try await app.requestOffPool("GET", path)
            #expect(json.status == 404)
            #expect(json.errorCode == "not_found")
            #expect(json.header("Content-Type")?.hasPrefix("application/json") == true)
        }
    }

    @Test("the page escapes the attendee, says a cancelled ticket is cancelled and why, and speaks Japanese when asked", arguments: Backend.allCases)
    func contents(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        let hostile = "<img src=x onerror=alert(1)>"
        let (serial, path) = try Self.ticket(app, attendee: hostile, seat: nil)
        let page = try await app.requestOffPool("GET", path, headers: [("Accept", Self.browserAccept), ("Accept-Language", "en-GB,en;q=0.9")])
        #expect(page.text.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(!page.text.contains(hostile))
        #expect(page.text.contains("General admission"), "no seat: general admission")
        #expect(page.text.contains(#"<html lang="en">"#))
        #expect(page.text.contains("Monday, March 1, 2027 at 7:00") && page.text.contains("(Asia/Tokyo)"), "the start in the event's zone")
        #expect(page.text.contains("Valid") && !page.text.contains("cancelled"))
        #expect(page.text.contains("Add to Apple Wallet") && page.text.contains(#"href="?format=pkpass""#), "a valid ticket offers its pass")

        let japanese = try await app.requestOffPool("GET", path, headers: [("Accept", Self.browserAccept), ("Accept-Language", "ja-JP,ja;q=0.9,en;q=0.5")])
        #expect(japanese.text.contains(#"<html lang="ja">"#))
        #expect(japanese.text.contains("Apple Walletに追加") && japanese.text.contains("2027年3月1日") && japanese.text.contains("自由席"))

        let cancel = try await app.adminOffPool("POST", "/admin/v1/tickets/\(serial)/cancel", json: #"{"reason":"Refunded <b>at</b> the door"}"#)
        #expect(cancel.status == 200)
        let cancelled = try await app.requestOffPool("GET", path, headers: [("Accept", Self.browserAccept)])
        #expect(cancelled.status == 200)
        #expect(cancelled.text.contains("This ticket has been cancelled."))
        #expect(cancelled.text.contains("Refunded &lt;b&gt;at&lt;/b&gt; the door"))
        #expect(!cancelled.text.contains(#"<figure class="qr">"#), "a cancelled ticket shows no code to get in with")
        #expect(!cancelled.text.contains("Add to Apple Wallet") && !cancelled.text.contains(#"href="?format=pkpass""#), "nor a pass to add")
        let cancelledJapanese = try await app.requestOffPool("GET", path, headers: [("Accept", Self.browserAccept), ("Accept-Language", "ja")])
        #expect(cancelledJapanese.text.contains("このチケットはキャンセルされました。") && cancelledJapanese.text.contains("キャンセル済み"))
    }

    @Test("a cached page follows every change: an event edit, a rename; a rotated link shows the same ticket", arguments: Backend.allCases)
    func changesReachThePage(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        let event = try app.createEvent(name: "Swift Night", venue: "Tokyo Hall")
        let serial = try app.issueTicket(event: event, attendee: "Ada Lovelace")
        let path = try AdminSupport.path(of: try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["downloadURL"] as? String)
        let browser = [("Accept", Self.browserAccept)]
        #expect(try await app.requestOffPool("GET", path, headers: browser).text.contains("Tokyo Hall"))

        let edit = try await app.adminOffPool("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Osaka Dome"}"#)
        try #require(edit.status == 200 || edit.status == 202, "\(edit.text)")
        try await eventually("the page shows the new venue once the re-push job reaches the pass") {
            let page = try app.request("GET", path, headers: browser).text
            return page.contains("Osaka Dome") && !page.contains("Tokyo Hall")
        }
        let rename = try await app.adminOffPool("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"Grace Hopper"}"#)
        #expect(rename.status == 200, "\(rename.text)")
        let renamed = try await app.requestOffPool("GET", path, headers: browser).text
        #expect(renamed.contains("Grace Hopper") && !renamed.contains("Ada Lovelace"))

        let rotated = try AdminSupport.path(of: try await app.adminOffPool("POST", "/admin/v1/tickets/\(serial)/download-link").jsonObject?["downloadURL"] as? String)
        #expect(try await app.requestOffPool("GET", path, headers: browser).status == 404)
        let page = try await app.requestOffPool("GET", rotated, headers: browser)
        #expect(page.status == 200 && page.text.contains("Grace Hopper"))
    }

    @Test("the page's QR code reads as the pass's barcode message (rendered by librsvg, read by zbar)", arguments: Backend.allCases)
    func qrCodeIsTheBarcode(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        let (_, path) = try Self.ticket(app)
        let page = try await app.requestOffPool("GET", path, headers: [("Accept", Self.browserAccept)])
        let barcodes = try #require(try PassArchive.passJSON(try await app.requestOffPool("GET", path).body)["barcodes"] as? [[String: Any]])
        let message = try #require(barcodes.first?["message"] as? String)
        let figure = try #require(page.text.range(of: #"<figure class="qr">"#))
        let start = try #require(page.text.range(of: "<svg", range: figure.upperBound..<page.text.endIndex))
        let end = try #require(page.text.range(of: "</svg>", range: start.upperBound..<page.text.endIndex))
        let svg = String(page.text[start.lowerBound..<end.upperBound])

        let directory = try TestCertificates.temporaryDirectory(prefix: "page-qr")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(svg.utf8).write(to: URL(fileURLWithPath: directory + "/code.svg"))
        let convert = try run("rsvg-convert", ["--width", "400", "--background-color", "white", "--output", directory + "/code.png", directory + "/code.svg"])
        try #require(convert.status == 0, "\(convert.error)")
        let scan = try run("zbarimg", ["--quiet", "--raw", "-Sbinary", directory + "/code.png"])
        #expect(scan.status == 0)
        #expect(scan.output == message)
    }
}

/// `Accept` and `Accept-Language` as the page reads them.
@Suite("Web: content negotiation", .offCooperativePool)
struct ContentNegotiationTests {
    @Test("the most specific range decides; ties and no header keep the pass")
    func accept() {
        func html(_ accept: String?) -> Bool { ContentNegotiation.prefers("text/html", over: "application/vnd.apple.pkpass", accept: accept) }
        #expect(html(AttendePageAccept.chrome))
        #expect(html(AttendePageAccept.safari))
        #expect(html("text/html"))
        #expect(html("text/*, */*;q=0.1"))
        #expect(!html(nil))
        #expect(!html(""))
        #expect(!html("*/*"))
        #expect(!html("application/vnd.apple.pkpass"))
        #expect(!html("text/html;q=0.4, application/vnd.apple.pkpass;q=0.5"))
        #expect(!html("text/html;q=0, */*"))
        #expect(!html("TEXT/HTML;Q=0.5, */*"), "case-insensitive")
        #expect(!html("text/html;q=2, */*"), "an unreadable q drops the entry")
        #expect(ContentNegotiation.quality(of: "text/html", accept: "image/png") == 0)
        #expect(ContentNegotiation.quality(of: "text/html", accept: String(repeating: "a/b, ", count: 100) + "text/html") == 0, "only the first entries are read")
    }

    @Test("languages by quality then order, primary subtags, English otherwise")
    func language() {
        func pick(_ header: String?) -> String { AttendeePage.language(acceptLanguage: header) }
        #expect(pick(nil) == "en")
        #expect(pick("ja") == "ja")
        #expect(pick("ja-JP,ja;q=0.9,en-US;q=0.8") == "ja")
        #expect(pick("en-US,en;q=0.9,ja;q=0.8") == "en")
        #expect(pick("fr-FR, de;q=0.9") == "en")
        #expect(pick("fr, ja;q=0.5, en;q=0.4") == "ja")
        #expect(pick("en;q=0.1, ja;q=0.2") == "ja")
        #expect(pick("ja;q=0, en") == "en")
        #expect(pick("*") == "en")
    }
}

private enum AttendePageAccept {
    static let chrome = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
    static let safari = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
}
