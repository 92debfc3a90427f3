import Foundation
import PassServerFixtures
import PassServerTesting
import HTTPServer
import Testing

@testable import PassServer

/// `HTML`: literals are markup, interpolated text is escaped, interpolated markup is not escaped
/// again, link targets are only http(s) or relative.
@Suite("Web: HTML escaped by construction", .offCooperativePool)
struct HTMLTests {
    @Test("a literal is markup; an interpolated String is text")
    func literalAndText() {
        let name = #"<script>alert(1)</script> & "Ada" 'B'"#
        let html: HTML = "<p class=\"name\">\(name)</p>"
        #expect(html.markup == #"<p class="name">&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Ada&quot; &#39;B&#39;</p>"#)
    }

    @Test("interpolated HTML is appended once, not escaped again; nil and arrays of fragments")
    func nested() {
        let inner: HTML = "<b>\("x<y")</b>"
        let missing: HTML? = nil
        let list: [HTML] = ["<li>1</li>", "<li>\("2&")</li>"]
        let outer: HTML = "<div>\(inner)\(missing)<ul>\(list)</ul></div>"
        #expect(outer.markup == "<div><b>x&lt;y</b><ul><li>1</li><li>2&amp;</li></ul></div>")
        #expect(HTML(joining: list, separator: ", ").markup == "<li>1</li>, <li>2&amp;</li>")
    }

    @Test("an attribute value cannot be closed from inside: both quote kinds are escaped")
    func attributes() {
        let value = #"x" onmouseover="alert(1)' onfocus='alert(2)"#
        let html: HTML = "<input value=\"\(value)\"><input value='\(value)'>"
        #expect(!html.markup.contains(#"" onmouseover"#))
        #expect(!html.markup.contains("' onfocus"))
        #expect(html.markup.contains("&quot; onmouseover=&quot;alert(1)&#39; onfocus=&#39;alert(2)"))
    }

    @Test(
        "a link target is http(s) or relative; any other scheme becomes #",
        arguments: [
            ("https://passes.example.org/download/abc", "https://passes.example.org/download/abc"),
            ("HTTP://example.org/", "HTTP://example.org/"),
            ("/admin/events/e1?q=a%20b", "/admin/events/e1?q=a%20b"),
            ("?format=pkpass", "?format=pkpass"),
            ("#tickets", "#tickets"),
            ("tickets/1:2", "tickets/1:2"),
            ("javascript:alert(1)", "#"),
            ("JaVaScRiPt:alert(1)", "#"),
            ("  javascript:alert(1)", "#"),
            ("\u{1}javascript:alert(1)", "#"),
            ("java\tscript:alert(1)", "#"),
            ("data:text/html,<script>alert(1)</script>", "#"),
            ("vbscript:msgbox(1)", "#"),
            ("//evil.example/", "#"),
            ("\\\\evil.example/", "#"),
        ]
    )
    func urls(url: String, expected: String) {
        #expect(HTML.safeURL(url) == expected)
        let html: HTML = "<a href=\"\(url: url)\">x</a>"
        #expect(!html.markup.lowercased().contains("href=\"javascript"))
        #expect(!html.markup.lowercased().contains("href=\"data"))
    }

    @Test("bidi controls become visible references; other control characters are replaced")
    func controls() {
        let html: HTML = "<p>\("abc\u{202E}fed\u{2066}x\u{2069}\u{200F}")\("a\u{0}b\u{1B}c\u{85}d\te\nf")</p>"
        #expect(html.markup == "<p>abc&#x202E;fed&#x2066;x&#x2069;&#x200F;a\u{FFFD}b\u{FFFD}c\u{FFFD}d\te\nf</p>")
        #expect(!html.markup.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) })
    }

    @Test("the sources build pages only from HTML: no manual escaping, no Mail, one unsafeRaw (the QR code's SVG)")
    func sources() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources/PassServer")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50, "found the sources")
        var unsafe: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            if file.hasPrefix("Web/") {
                #expect(!text.contains("HTML.escape"), "\(file) escapes by hand")
                #expect(!text.contains("import Mail"), "\(file) imports Mail")
            }
            if file != "Web/HTML.swift", text.contains("HTML(unsafeRaw:") { unsafe.append(file) }
        }
        #expect(unsafe == ["Web/QRCode.swift"])
    }

    /// A `String` cannot become a page: `Response.html` takes `HTML`, and `HTML` is made from a
    /// `String` only by interpolation (escaped). Written here as what the compiler allows: the
    /// commented line does not compile ("cannot convert value of type 'String' to expected argument
    /// type 'HTML'"), since `HTML`'s literal type is `StaticString`.
    @Test("a page is HTML; a String reaches it only escaped")
    func responseTakesHTML() {
        let text = "<b>bold</b>"
        // let response = Response.html(text)
        let response = Response.html("<p>\(text)</p>")
        #expect(String(decoding: response.body, as: UTF8.self) == "<p>&lt;b&gt;bold&lt;/b&gt;</p>")
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
    }
}

/// Every page, rendered with hostile values in every field a person can type.
@Suite("Web: pages with hostile values", .offCooperativePool, .timeLimit(.minutes(3)))
struct HostilePageTests {
    static let script = "<script>alert(1)</script>"
    static let image = #""><img src=x onerror=alert(1)>"#
    static let link = "javascript:alert(1)"
    static let bidi = "\u{202E}gnp.exe"
    static let values = [script, image, link, bidi]

    /// Fails when `page` holds any hostile value unescaped.
    static func expectEscaped(_ page: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lower = page.lowercased()
        #expect(!lower.contains("<script>alert"), "\(name): raw <script>", sourceLocation: sourceLocation)
        #expect(!lower.contains("<img src=x"), "\(name): raw <img>", sourceLocation: sourceLocation)
        #expect(!lower.contains(#"href="javascript"#) && !lower.contains(#"action="javascript"#), "\(name): javascript: link", sourceLocation: sourceLocation)
        #expect(!page.unicodeScalars.contains("\u{202E}"), "\(name): raw bidi override", sourceLocation: sourceLocation)
    }

    @Test("the attendee page, rendered without HTTP")
    func attendeePage() {
        for value in Self.values {
            let ticket = AttendeePage.Ticket(
                organizationName: value, eventName: value, venue: value, startsAt: Date(timeIntervalSince1970: 1_800_000_000),
                timeZone: "Asia/Tokyo", attendeeName: value, seat: value, cancelled: true, cancellationReason: value, serialNumber: value,
                barcode: nil, passURL: value
            )
            let page = AttendeePage.render(ticket, language: "en").markup
            // The values are there, escaped: the test would fail on a page that dropped them.
            #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;") || value != Self.script)
            #expect(page.contains("&#x202E;gnp.exe") || value != Self.bidi)
            Self.expectEscaped(page, "attendee page with \(value)")
            var valid = ticket
            valid.cancelled = false
            let validPage = AttendeePage.render(valid, language: "ja").markup
            Self.expectEscaped(validPage, "Japanese attendee page with \(value)")
            // Only a valid ticket offers its pass.
            if value == Self.link { #expect(validPage.contains(##"href="#""##), "a javascript: pass URL becomes #") }
        }
    }

    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test("every dashboard page and the attendee page over HTTP", arguments: Backend.allCases)
    func dashboardPages(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let name = Self.script + Self.bidi
        let created = try app.admin(
            "POST", "/admin/v1/events",
            json: try Self.json(["name": name, "venue": Self.image, "startsAt": "2027-03-01T19:00:00+09:00", "timeZone": "Asia/Tokyo"])
        )
        try #require(created.status == 201, "\(created.text)")
        let event = try #require(created.jsonObject?["id"] as? String)
        var serials: [String] = []
        for (attendee, seat) in [(Self.script, Self.image), (Self.image, Self.link), (Self.bidi, Self.script)] {
            let issued = try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: try Self.json(["attendeeName": attendee, "seat": seat]))
            try #require(issued.status == 201, "\(issued.text)")
            serials.append(try #require(issued.jsonObject?["serialNumber"] as? String))
        }
        let cancelled = try app.admin("POST", "/admin/v1/tickets/\(serials[2])/cancel", json: try Self.json(["reason": Self.image]))
        try #require(cancelled.status == 200, "\(cancelled.text)")
        let details = try app.admin("GET", "/admin/v1/tickets/\(serials[0])")
        let download = try AdminSupport.path(of: details.jsonObject?["downloadURL"] as? String)

        let (client, _) = try DashboardClient.signIn(app, token: app.adminToken)
        let query = Self.script.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let pages = [
            "/admin/", "/admin/?when=all&q=\(query)", "/admin/events/new", "/admin/events/\(event)", "/admin/events/\(event)?q=\(query)",
            "/admin/events/\(event)/edit", "/admin/scan",
        ] + serials.map { "/admin/tickets/\($0)" }
        for page in pages {
            let response = try client.get(page)
            #expect(response.status == 200, "\(page): \(response.status)")
            Self.expectEscaped(response.text, page)
        }
        // The values are on the pages, escaped (a page that showed none of them would pass above).
        let eventPage = try client.get("/admin/events/\(event)").text
        #expect(eventPage.contains("&lt;script&gt;alert(1)&lt;/script&gt;&#x202E;gnp.exe"))
        #expect(eventPage.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
        let attendee = try app.request("GET", download, headers: [("Accept", "text/html")])
        #expect(attendee.status == 200)
        #expect(attendee.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        Self.expectEscaped(attendee.text, "attendee page")
        // A refused form shows the typed values again, escaped.
        let csrf = try client.csrf(on: "/admin/events/new")
        let refused = try client.post(
            "/admin/events", [("name", Self.image), ("venue", Self.script), ("startsAt", Self.link), ("timeZone", Self.bidi)], csrf: csrf
        )
        #expect(refused.status == 400)
        Self.expectEscaped(refused.text, "refused new-event form")
    }
}
