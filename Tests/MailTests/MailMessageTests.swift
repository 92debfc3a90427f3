import Foundation
import Mail
import PassServerTesting
import Testing

/// Building messages: headers that no text can break, RFC 2047 for anything not plain ASCII,
/// HTML escaping of every value, and a `multipart/alternative` that a real parser (Python's
/// `email` package, through the test SMTP server) reads back as written.
@Suite("Mail messages", .offCooperativePool, .timeLimit(.minutes(2)))
struct MailMessageTests {
    static let hostileName = "Eve\r\nBcc: victim@example.com\r\n\r\n<script>alert(1)</script> & \"friends\""

    static func message(name: String = "山田 太郎", subject: String = "チケットのご案内: Swift Night") throws -> MailMessage {
        MailMessage(
            from: try MailAddress.parse("Example Events <tickets@events.example.org>"),
            replyTo: try MailAddress("help@events.example.org", displayName: "Help desk"),
            to: try MailAddress("taro@example.com", displayName: name),
            subject: subject, text: "Hello\nworld", html: "<p>Hello</p>", date: Date(timeIntervalSince1970: 1_803_877_200)
        )
    }

    /// The header block of a rendered message, unfolded into (name, value) pairs.
    static func headers(_ bytes: [UInt8]) -> [(name: String, value: String)] {
        let text = String(decoding: bytes, as: UTF8.self)
        let block = text.components(separatedBy: "\r\n\r\n").first ?? ""
        var headers: [(String, String)] = []
        for line in block.components(separatedBy: "\r\n") {
            if line.hasPrefix(" ") || line.hasPrefix("\t"), let last = headers.popLast() {
                headers.append((last.0, last.1 + line))
            } else if let colon = line.firstIndex(of: ":") {
                headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
            }
        }
        return headers
    }

    @Test("random hex for Message-ID and boundaries: two lowercase digits per byte, different each time")
    func randomHex() {
        let first = MailMessage.randomHex(16)
        #expect(first.count == 32)
        #expect(first.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }, "\(first)")
        #expect(first != MailMessage.randomHex(16))
        #expect(MailMessage.randomHex(0).isEmpty)
    }

    @Test("single lines: CR, LF, tabs, other controls and line separators become one space")
    func singleLine() {
        #expect(HeaderText.singleLine("a\r\nb\tc\u{7}d\u{2028}e\u{85}f  g ") == "a b c d e f g")
        #expect(HeaderText.singleLine(String(repeating: "x", count: 600)).count == 500)
    }

    @Test("RFC 2047: plain ASCII stays, anything else becomes UTF-8 words of at most 75 characters that decode back")
    func encodedWords() throws {
        #expect(HeaderText.encoded("Your ticket") == "Your ticket")
        let japanese = String(repeating: "チケットのご案内", count: 6)
        let encoded = HeaderText.encoded(japanese)
        let words = encoded.components(separatedBy: "\r\n ")
        #expect(words.count > 1)
        var decoded: [UInt8] = []
        for word in words {
            #expect(word.count <= 75)
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            let payload = word.dropFirst("=?UTF-8?B?".count).dropLast(2)
            let bytes = try #require(Data(base64Encoded: String(payload)))
            // Every word holds whole characters.
            #expect(String(bytes: bytes, encoding: .utf8) != nil)
            decoded += bytes
        }
        #expect(String(decoding: decoded, as: UTF8.self) == japanese)
        // Text that looks like an encoded word is encoded itself, so no reader decodes it.
        #expect(HeaderText.encoded("=?UTF-8?B?QmNjOg==?=").hasPrefix("=?UTF-8?B?"))
    }

    @Test("addresses: plain ASCII local@domain only; display names quoted or encoded as needed")
    func addresses() throws {
        for good in ["a@b.co", "first.last+tag@mail.example.org", "x_y-z@sub-domain.example.jp"] {
            #expect(throws: Never.self) { try MailAddress(good) }
        }
        for bad in ["", "a@b", "@b.co", "a b@c.co", "a@b..co", "a@-b.co", "a<b@c.co", "a@b.co>", "a\r\n@b.co", "taró@example.com",
                    "a@exämple.com", "a,b@c.co", "\"a\"@b.co", ".a@b.co"] {
            #expect(throws: MailError.self, "\(bad.debugDescription)") { try MailAddress(bad) }
        }
        #expect(try MailAddress("a@b.co", displayName: "Ada Lovelace").headerValue == "Ada Lovelace <a@b.co>")
        #expect(try MailAddress("a@b.co", displayName: "Lovelace, Ada \"AL\"").headerValue == #""Lovelace, Ada \"AL\"" <a@b.co>"#)
        #expect(try MailAddress("a@b.co", displayName: "山田").headerValue == "=?UTF-8?B?5bGx55Sw?= <a@b.co>")
        let parsed = try MailAddress.parse("\"Example Events\" <tickets@example.org>")
        #expect(parsed.address == "tickets@example.org" && parsed.displayName == "Example Events")
        #expect(try MailAddress.parse("tickets@example.org").displayName == nil)
    }

    @Test("templates: unknown or unclosed placeholders are refused; values are escaped for HTML and kept on one line")
    func templates() throws {
        let names: Set<String> = ["attendeeName", "eventName"]
        #expect(throws: MailError.self) { try MailTemplate(subject: "{{nope}}", text: "", html: "", placeholders: names) }
        #expect(throws: MailError.self) { try MailTemplate(subject: "", text: "{{attendeeName", html: "", placeholders: names) }
        let template = try MailTemplate(
            subject: "Ticket for {{ eventName }}", text: "Dear {{attendeeName}},\nsee you.", html: "<p>Dear {{attendeeName}}</p>", placeholders: names
        )
        let rendered = template.render(["attendeeName": Self.hostileName, "eventName": "A\r\nB"])
        #expect(rendered.subject == "Ticket for A B")
        #expect(rendered.text == "Dear Eve Bcc: victim@example.com <script>alert(1)</script> & \"friends\",\nsee you.")
        #expect(rendered.html == "<p>Dear Eve Bcc: victim@example.com &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;friends&quot;</p>")

        // A quote followed by a combining mark is one Character but still a quote to a browser:
        // it must not close an attribute.
        let attribute = try MailTemplate(subject: "", text: "", html: #"<img alt="{{attendeeName}}">"#, placeholders: names)
        let combined = attribute.render(["attendeeName": "x\"\u{301} onerror=alert(1) <\u{338}b", "eventName": ""]).html
        #expect(combined == "<img alt=\"x&quot;\u{301} onerror=alert(1) &lt;\u{338}b\">")
        #expect(HTMLText.escape("'\u{301}&\u{301}>\u{338}") == "&#39;\u{301}&amp;\u{301}&gt;\u{338}")
    }

    @Test("sections: kept when their value is not empty, left out otherwise; unbalanced or nested ones are refused")
    func sections() throws {
        let names: Set<String> = ["attendeeName", "link"]
        let template = try MailTemplate(
            subject: "Hi{{#link}} (link){{/link}}", text: "A\n{{#link}}Open {{link}}\n{{/link}}B", html: "{{# link }}<a href=\"{{link}}\">go</a>{{/ link }}<p>{{attendeeName}}</p>",
            placeholders: names
        )
        let with = template.render(["attendeeName": "Ada", "link": "https://x.example/a?b=1&c=2"])
        #expect(with.subject == "Hi (link)")
        #expect(with.text == "A\nOpen https://x.example/a?b=1&c=2\nB")
        #expect(with.html == #"<a href="https://x.example/a?b=1&amp;c=2">go</a><p>Ada</p>"#)
        for values in [["attendeeName": "Ada"], ["attendeeName": "Ada", "link": ""]] {
            let without = template.render(values)
            #expect(without.subject == "Hi" && without.text == "A\nB" && without.html == "<p>Ada</p>")
        }
        for (text, why) in [
            ("{{#link}}open", "unclosed"), ("{{/link}}", "closes nothing"), ("{{#link}}{{#attendeeName}}{{/attendeeName}}{{/link}}", "nested"),
            ("{{#nope}}{{/nope}}", "unknown"), ("{{#link}}{{/attendeeName}}", "mismatched"),
        ] {
            #expect(throws: MailError.self, "\(why)") { try MailTemplate(subject: "", text: text, html: "", placeholders: names) }
        }
    }

    @Test("lists: a list's section is written once per item, its names known only inside it, each value escaped")
    func lists() throws {
        let names: Set<String> = ["buyer", "link"]
        let lists: [String: Set<String>] = ["tickets": ["attendee", "seat"]]
        let template = try MailTemplate(
            subject: "{{buyer}}: {{#tickets}}[{{attendee}}]{{/tickets}}", text: "Hi {{buyer}}\n{{#tickets}}- {{attendee}} ({{seat}}) {{link}}\n{{/tickets}}end",
            html: "<ul>{{#tickets}}<li>{{attendee}}</li>{{/tickets}}</ul>{{#link}}<a href=\"{{link}}\">go</a>{{/link}}", placeholders: names, lists: lists
        )
        let rendered = template.render(
            ["buyer": "Bea", "link": "https://x.example/o?a=1&b=2"],
            lists: ["tickets": [["attendee": Self.hostileName, "seat": "A1"], ["attendee": "Bo\r\nBcc: x@example.com", "seat": "A2"]]]
        )
        #expect(rendered.subject == #"Bea: [Eve Bcc: victim@example.com <script>alert(1)</script> & "friends"][Bo Bcc: x@example.com]"#)
        #expect(rendered.text == """
            Hi Bea
            - Eve Bcc: victim@example.com <script>alert(1)</script> & "friends" (A1) https://x.example/o?a=1&b=2
            - Bo Bcc: x@example.com (A2) https://x.example/o?a=1&b=2
            end
            """)
        #expect(rendered.html == #"<ul><li>Eve Bcc: victim@example.com &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;friends&quot;</li><li>Bo Bcc: x@example.com</li></ul><a href="https://x.example/o?a=1&amp;b=2">go</a>"#)
        #expect(template.render(["buyer": "Bea"], lists: ["tickets": []]).text == "Hi Bea\nend", "an empty list writes nothing")
        #expect(template.render(["buyer": "Bea"]).text == "Hi Bea\nend", "a list not given is empty")
        for (text, why) in [
            ("{{attendee}}", "an item's name outside its list"), ("{{tickets}}", "a list as a value"),
            ("{{#tickets}}{{#link}}{{/link}}{{/tickets}}", "nested"), ("{{#tickets}}{{nope}}{{/tickets}}", "unknown inside"),
        ] {
            #expect(throws: MailError.self, "\(why)") { try MailTemplate(subject: "", text: text, html: "", placeholders: names, lists: lists) }
        }
    }

    @Test("a hostile display name stays inside its one To header; every line ends in CRLF and is short")
    func hostileHeaders() throws {
        let bytes = try Self.message(name: Self.hostileName, subject: "Hi " + Self.hostileName).rendered()
        let names = Self.headers(bytes).map { $0.name.lowercased() }
        #expect(names == ["from", "reply-to", "to", "subject", "date", "message-id", "mime-version", "content-type"])
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("\nBcc") && !text.contains("\n\n") && !text.contains("\r\n\r\n<script"))
        let withoutCRLF = text.replacingOccurrences(of: "\r\n", with: "")
        #expect(!withoutCRLF.contains("\r") && !withoutCRLF.contains("\n"))
        #expect(text.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 998 })
        #expect(bytes.allSatisfy { $0 < 0x80 })
    }

    @Test("the headers and parts as written: From, Reply-To, To, encoded subject, date, multipart/alternative")
    func rendering() throws {
        let bytes = try Self.message().rendered(boundary: "=_b")
        let headers = Dictionary(Self.headers(bytes).map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(headers["From"] == "Example Events <tickets@events.example.org>")
        #expect(headers["Reply-To"] == "Help desk <help@events.example.org>")
        #expect(headers["To"]?.hasSuffix(" <taro@example.com>") == true)
        #expect(headers["Subject"]?.hasPrefix("=?UTF-8?B?") == true)
        #expect(headers["Date"] == "Mon, 01 Mar 2027 05:00:00 +0000")
        #expect(headers["Message-ID"]?.hasSuffix("@events.example.org>") == true)
        #expect(headers["Content-Type"] == "multipart/alternative; boundary=\"=_b\"")
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\r\n--=_b\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\nSGVsbG8NCndvcmxk\r\n"))
        #expect(text.hasSuffix("\r\n--=_b--\r\n"))
    }

    /// A name that reads as an encoded-word (`=?UTF-8?B?…?=` spelling `Bcc: victim@example.com`)
    /// is made only of atom characters; written raw, every reader would decode it into the text it
    /// spells. It is encoded like any other name that is not plain, so it reads back as itself.
    @Test("a display name that looks like an RFC 2047 encoded-word is encoded, and a real parser reads it back as typed")
    func encodedWordLookalikeName() throws {
        let lookalike = "=?UTF-8?B?QmNjOiB2aWN0aW1AZXhhbXBsZS5jb20=?="
        let address = try MailAddress("taro@example.com", displayName: lookalike)
        #expect(!address.headerValue.contains(lookalike), "\(address.headerValue)")
        #expect(address.headerValue.hasPrefix("=?UTF-8?B?") && address.headerValue.hasSuffix(" <taro@example.com>"))
        // Control: a plain name is still written as it is.
        #expect(try MailAddress("taro@example.com", displayName: "Taro Yamada").headerValue == "Taro Yamada <taro@example.com>")

        let directory = try TestCertificates.temporaryDirectory(prefix: "mail-lookalike")
        let server = try TestSMTPServer(in: directory)
        let client = try SMTPClient(SMTPConfiguration(url: server.url(), allowPlaintext: true))
        let message = try Self.message(name: lookalike, subject: lookalike)
        #expect(client.send(from: message.from.address, to: message.to.address, message: message.rendered()).failure == nil)
        let parsed = try #require(try server.messages().first?.parsed)
        #expect(parsed.defects.isEmpty)
        #expect(parsed.decoded["To"] == "\(lookalike) <taro@example.com>")
        #expect(parsed.decoded["Subject"] == lookalike)
    }

    @Test("through a real SMTP server, Python's email parser reads back every header and part as meant")
    func readByAnotherParser() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "mail-message")
        let server = try TestSMTPServer(in: directory)
        let client = try SMTPClient(SMTPConfiguration(url: server.url(), allowPlaintext: true))
        let message = try Self.message(name: Self.hostileName, subject: "チケットのご案内: " + Self.hostileName)
        let outcome = client.send(from: message.from.address, to: message.to.address, message: message.rendered())
        #expect(outcome.failure == nil)
        let parsed = try #require(try server.messages().first?.parsed)
        #expect(parsed.defects.isEmpty)
        #expect(parsed.contentType == "multipart/alternative")
        #expect(parsed.decoded["Subject"] == "チケットのご案内: Eve Bcc: victim@example.com <script>alert(1)</script> & \"friends\"")
        #expect(parsed.decoded["From"] == "Example Events <tickets@events.example.org>")
        #expect(parsed.decoded["Reply-To"] == "Help desk <help@events.example.org>")
        #expect(parsed.decoded["To"]?.hasSuffix("<taro@example.com>") == true)
        #expect(parsed.raw("Bcc").isEmpty && parsed.headers.count == 8)
        #expect(parsed.parts.map(\.type) == ["text/plain", "text/html"])
        #expect(parsed.parts.allSatisfy { $0.charset?.lowercased() == "utf-8" })
        #expect(parsed.part("text/plain") == "Hello\r\nworld\r\n" || parsed.part("text/plain") == "Hello\nworld\n" || parsed.part("text/plain") == "Hello\r\nworld")
    }
}
