import Foundation
import PassServerTesting
import Testing

@testable import HTTPServer

/// A route that declares its query parameters refuses any other, naming it, before its handler
/// runs and before the body is read; a route that declares none takes anything.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct QueryDeclarationTests {
    static func router(handled: Counter) -> Router {
        var router = Router()
        router.get("/items", query: ["q", "limit"]) { request in
            handled.increment()
            return .text("q=\(request.query["q"] ?? "")")
        }
        router.post(
            "/items", query: [], preflight: { request in
                guard request.headers["Authorization"] == "Bearer ok" else { throw HTTPError(status: 401, code: "unauthorized", message: "No.") }
            },
            { _ in
                handled.increment()
                return .text("made")
            }
        )
        router.get("/anything") { _ in .text("any") }
        return router
    }

    @Test func declaredParametersPass() throws {
        let handled = Counter()
        try TestServer.with(Self.router(handled: handled)) { server in
            let response = try server.client().request("GET", "/items?q=ada&limit=5")
            #expect(response.status == 200)
            #expect(response.text == "q=ada")
            #expect(try server.client().request("GET", "/items").status == 200)
            #expect(try server.client().request("GET", "/anything?colour=1&x=2").status == 200, "no declaration: anything goes")
            #expect(handled.value == 2)
        }
    }

    @Test func anUnknownParameterIsNamedAndTheHandlerNeverRuns() throws {
        let handled = Counter()
        try TestServer.with(Self.router(handled: handled)) { server in
            let response = try server.client().request("GET", "/items?q=ada&colour=1")
            #expect(response.status == 400)
            #expect(response.errorCode == "unknown_query_parameter")
            #expect(response.text.contains("'colour'"))
            #expect(response.text.contains("limit, q"), "the answer lists what the route takes")
            let noneTaken = try server.client().request("POST", "/items?dryRun=1", headers: [("Authorization", "Bearer ok")])
            #expect(noneTaken.status == 400)
            #expect(noneTaken.text.contains("'dryRun'"))
            #expect(noneTaken.text.contains("takes no query parameters"))
            #expect(handled.value == 0)
        }
    }

    @Test func aRepeatedParameterIsRefused() throws {
        let handled = Counter()
        try TestServer.with(Self.router(handled: handled)) { server in
            let response = try server.client().request("GET", "/items?q=a&q=b")
            #expect(response.status == 400)
            #expect(response.errorCode == "repeated_query_parameter")
            #expect(response.text.contains("'q'"))
            #expect(handled.value == 0)
        }
    }

    @Test func thePreflightAnswersFirst() throws {
        let handled = Counter()
        try TestServer.with(Self.router(handled: handled)) { server in
            let response = try server.client().request("POST", "/items?colour=1")
            #expect(response.status == 401, "unauthenticated callers learn nothing more")
        }
    }

    @Test func aHostileNameIsQuotedBoundedAndWithoutControlCharacters() throws {
        let handled = Counter()
        try TestServer.with(Self.router(handled: handled)) { server in
            let name = String(repeating: "x", count: 300) + "%0A%1B"
            let response = try server.client().request("GET", "/items?\(name)=1")
            #expect(response.status == 400)
            #expect(!response.text.contains(String(repeating: "x", count: 65)))
            let decoded = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: [String: String]]
            let message = try #require(decoded?["error"]?["message"])
            #expect(!message.unicodeScalars.contains { $0.value < 0x20 })
            let short = try server.client().request("GET", "/items?a%0Ab=1")
            let shortMessage = try #require(((try? JSONSerialization.jsonObject(with: Data(short.body))) as? [String: [String: String]])?["error"]?["message"])
            #expect(shortMessage.contains("'a?b'"))
        }
    }
}
