@testable import HTTPServer
import PassServerTesting
import Testing

@Suite(.offCooperativePool) struct RouterTests {
    private func router() -> Router {
        var router = Router()
        router.get("/v1/passes/:passTypeIdentifier/:serialNumber") { _ in Response() }
        router.get("/v1/passes/new/:serialNumber") { _ in Response() }
        router.delete("/v1/passes/:passTypeIdentifier/:serialNumber") { _ in Response() }
        router.post("/upload") { _ in Response() }
        router.get("/") { _ in Response() }
        return router
    }

    private func found(_ match: Router.Match) -> (pattern: String, parameters: [String: String])? {
        if case .found(let route, let parameters) = match { return (route.pattern, parameters) }
        return nil
    }

    @Test func bindsPercentDecodedParameters() throws {
        let match = try #require(found(router().match(method: .GET, rawPath: "/v1/passes/pass.com.example/A%2FB%20C")))
        #expect(match.pattern == "/v1/passes/:passTypeIdentifier/:serialNumber")
        #expect(match.parameters == ["passTypeIdentifier": "pass.com.example", "serialNumber": "A/B C"])
    }

    @Test func literalSegmentsBeatParameters() throws {
        let match = try #require(found(router().match(method: .GET, rawPath: "/v1/passes/new/42")))
        #expect(match.pattern == "/v1/passes/new/:serialNumber")
        #expect(match.parameters == ["serialNumber": "42"])
    }

    @Test func headUsesTheGetRoute() throws {
        let match = try #require(found(router().match(method: .HEAD, rawPath: "/v1/passes/a/b")))
        #expect(match.pattern == "/v1/passes/:passTypeIdentifier/:serialNumber")
    }

    @Test func wrongMethodListsAllowedMethodsIncludingHead() {
        guard case .methodNotAllowed(let allow) = router().match(method: .PUT, rawPath: "/v1/passes/a/b") else {
            Issue.record("expected 405")
            return
        }
        #expect(allow == "GET, HEAD, DELETE")
        guard case .methodNotAllowed(let postOnly) = router().match(method: .GET, rawPath: "/upload") else {
            Issue.record("expected 405")
            return
        }
        #expect(postOnly == "POST")
    }

    @Test(arguments: ["/nope", "/v1/passes/a", "/v1/passes/a/b/", "/v1/passes//b", "/upload/", "relative", "*", "//"])
    func unknownShapesAreNotFound(path: String) {
        guard case .notFound = router().match(method: .GET, rawPath: path) else {
            Issue.record("expected 404 for \(path)")
            return
        }
    }

    @Test func dotSegmentsAreOrdinaryParameterValues() throws {
        let match = try #require(found(router().match(method: .GET, rawPath: "/v1/passes/../%2E%2E")))
        #expect(match.parameters == ["passTypeIdentifier": "..", "serialNumber": ".."])
    }

    @Test(arguments: ["/v1/passes/a/%zz", "/v1/passes/a/%", "/v1/passes/a/%C3", "/%FF"])
    func malformedEscapesAreBadPaths(path: String) {
        guard case .badPath = router().match(method: .GET, rawPath: path) else {
            Issue.record("expected a bad path for \(path)")
            return
        }
    }

    @Test func rootAndRouteListing() throws {
        #expect(found(router().match(method: .GET, rawPath: "/"))?.pattern == "/")
        let listed = router().routes.map { "\($0.method) \($0.pattern)" }
        #expect(listed == [
            "GET /v1/passes/:passTypeIdentifier/:serialNumber", "GET /v1/passes/new/:serialNumber",
            "DELETE /v1/passes/:passTypeIdentifier/:serialNumber", "POST /upload", "GET /",
        ])
    }

    @Test func registeringAgainReplacesTheHandler() throws {
        var router = Router()
        router.get("/a", maxBodySize: 1) { _ in Response(status: 201) }
        router.get("/a", maxBodySize: 2) { _ in Response(status: 202) }
        #expect(router.routes.count == 1)
        guard case .found(let route, _) = router.match(method: .GET, rawPath: "/a") else {
            Issue.record("expected a match")
            return
        }
        #expect(route.maxBodySize == 2)
        #expect(try route.handler(Request()).status == 202)
    }
}
