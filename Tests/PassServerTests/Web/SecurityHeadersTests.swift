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
