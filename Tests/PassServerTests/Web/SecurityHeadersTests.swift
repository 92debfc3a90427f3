import Foundation
import HTTPServer
import PassServerTesting
import Testing

@testable import PassServer

/// Every HTML response carries a Content-Security-Policy without inline script, no framing, no
/// sniffing and no Referer.
@Suite("Web: security headers", .offCooperativePool)
struct SecurityHeadersTests {
    private func pairs(_ response: Response) -> [(String, String)] {
        HTML.securityHeaders.map(\.name).compactMap { name in response.headers[name].map { (name, $0) } }
            + [("Content-Type", response.headers["Content-Type"] ?? "")]
    }

    @Test("Response.html carries them all, whatever else the caller adds")
    func htmlResponse() {
        let plain = Response.html(HTML.document(title: "t", body: "<p>x</p>"))
        #expect(SecurityHeaders.problems(pairs(plain)).isEmpty, "\(SecurityHeaders.problems(pairs(plain)))")
        #expect(plain.headers["Content-Type"] == "text/html; charset=utf-8")
        let withOthers = Response.html("x", status: 404, headers: ["Last-Modified": "Mon, 30 Nov 2026 00:00:00 GMT"])
        #expect(withOthers.status == 404)
        #expect(SecurityHeaders.problems(pairs(withOthers)).isEmpty)
        #expect(withOthers.headers["Last-Modified"] != nil)
    }

    @Test("the check finds each missing or weakened header, so it can fail")
    func checkCanFail() {
        let good = HTML.securityHeaders.map { ($0.name, $0.value) } + [("Content-Type", "text/html; charset=utf-8")]
        #expect(SecurityHeaders.problems(good).isEmpty)
        func without(_ name: String) -> [(String, String)] { good.filter { $0.0 != name } }
        func replacing(_ name: String, _ value: String) -> [(String, String)] { without(name) + [(name, value)] }
        #expect(SecurityHeaders.problems(without("Content-Security-Policy")) == ["no Content-Security-Policy"])
        #expect(SecurityHeaders.problems(without("X-Content-Type-Options")).count == 1)
        #expect(SecurityHeaders.problems(without("Referrer-Policy")).count == 1)
        #expect(SecurityHeaders.problems(replacing("Referrer-Policy", "origin")).count == 1)
        #expect(SecurityHeaders.problems(replacing("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline'; object-src 'none'; frame-ancestors 'none'")).count == 1)
        #expect(SecurityHeaders.problems(replacing("Content-Security-Policy", "default-src 'self'; object-src 'none'; frame-ancestors 'self'")).count == 1)
        #expect(SecurityHeaders.problems(replacing("Content-Security-Policy", "object-src 'none'; frame-ancestors 'none'")).count == 1, "no script-src at all")
        #expect(SecurityHeaders.problems(replacing("Content-Type", "application/json")).count == 1)
    }

    @Test("HTML is made only by Response.html: no other source file sets a text/html content type")
    func onlyOneWayToHTML() throws {
        let root = PassServerExecutable.packageRoot.appendingPathComponent("Sources/PassServer")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.contains("Web/HTML.swift"), "the scan sees the file that does set it")
        func settingHTML(_ file: String) throws -> [String] {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            return text.split(separator: "\n").filter { line in
                !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
                    && (line.contains("text/html;") || line.contains(#""Content-Type": "text/html"#))
            }.map { "\(file): \($0)" }
        }
        // The scan recognises the line that does set it, so it would find another.
        #expect(try !settingHTML("Web/HTML.swift").isEmpty, "the scan misses how Response.html sets the type")
        var offenders: [String] = []
        for file in files where file != "Web/HTML.swift" {
            offenders += try settingHTML(file)
        }
        #expect(offenders.isEmpty, "build pages with Response.html, which adds the security headers:\n\(offenders.joined(separator: "\n"))")
    }

    @Test("the policy itself: script only from this server, nothing inline, no plugins, no framing")
    func policy() throws {
        let policy = try #require(HTML.securityHeaders.first { $0.name == "Content-Security-Policy" }?.value)
        let directives = SecurityHeaders.directives(policy)
        #expect(directives["script-src"] == ["'self'"])
        #expect(directives["frame-ancestors"] == ["'none'"])
        #expect(directives["object-src"] == ["'none'"])
        #expect(directives["base-uri"] == ["'none'"])
        #expect(!policy.contains("unsafe"))
    }
}
