import Foundation
import HTTPServer
import PassServerTesting
import Testing

/// Routing and request values over real sockets.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct RoutingTests {
    private struct Seen: Codable {
        var method: String
        var path: String
        var parameters: [String: String]
        var query: [String: String]
        var queryItems: [[String]]
        var agent: String?
        var custom: [String]
        var peer: String
    }

    private func router() -> Router {
        var router = echoRouter()
        let describe: Handler = { request in
            .json(Seen(
                method: request.method.rawValue, path: request.path, parameters: request.parameters, query: request.query,
                queryItems: request.queryItems.map { [$0.name, $0.value] }, agent: request.headers["user-agent"],
                custom: request.headers.values(for: "x-custom"), peer: request.peerAddress
            ))
        }
        router.get("/v1/passes/:passTypeIdentifier/:serialNumber", describe)
        router.delete("/v1/passes/:passTypeIdentifier/:serialNumber", describe)
        router.get("/items", describe)
        router.get("/fixed") { _ in .json(["answer": 42]) }
        router.put("/empty/:status") { request in Response(status: Int(request.parameters["status"] ?? "") ?? 200) }
        return router
    }

    private func seen(_ response: TestResponse) throws -> Seen {
        try JSONDecoder().decode(Seen.self, from: Data(response.body))
    }

    @Test func parametersQueryAndHeaders() throws {
        try TestServer.with(router()) { server in
            let client = try server.client()
            let response = try client.request(
                "GET", "/v1/passes/pass.example/S%2F1%20x?q=a+b&q=second&e=%C3%A9",
                headers: [("USER-AGENT", "test/1"), ("x-custom", "one"), ("X-Custom", "two")]
            )
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            let seen = try seen(response)
            #expect(seen.parameters == ["passTypeIdentifier": "pass.example", "serialNumber": "S/1 x"])
            #expect(seen.path == "/v1/passes/pass.example/S/1 x")
            #expect(seen.query == ["q": "a b", "e": "é"])
            #expect(seen.queryItems == [["q", "a b"], ["q", "second"], ["e", "é"]])
            #expect(seen.agent == "test/1")
            #expect(seen.custom == ["one", "two"])
            #expect(seen.peer == "127.0.0.1")
            // Same connection again: keep-alive works.
            #expect(try client.request("DELETE", "/v1/passes/a/b").status == 200)
        }
    }

    @Test func unknownPathIs404JSON() throws {
        try TestServer.with(router()) { server in
            let response = try server.client().request("GET", "/nowhere")
            #expect(response.status == 404)
            #expect(response.errorCode == "not_found")
            #expect(response.header("Content-Type") == "application/json")
        }
    }

    @Test func wrongMethodIs405WithAllow() throws {
        try TestServer.with(router()) { server in
            let response = try server.client().request("PUT", "/v1/passes/a/b", body: Array("x".utf8))
            #expect(response.status == 405)
            #expect(response.errorCode == "method_not_allowed")
            #expect(response.header("Allow") == "GET, HEAD, DELETE")
            let unknownMethod = try server.client().request("BREW", "/items")
            #expect(unknownMethod.status == 405)
            #expect(unknownMethod.header("Allow") == "GET, HEAD")
        }
    }

    @Test func headAnswersWithGetHeadersAndNoBody() throws {
        try TestServer.with(router()) { server in
            let client = try server.client()
            let get = try client.request("GET", "/fixed?x=1")
            let head = try client.request("HEAD", "/fixed?x=1")
            #expect(head.status == 200)
            #expect(head.header("Content-Type") == "application/json")
            #expect(head.header("Content-Length") == String(get.body.count))
            #expect(head.body.isEmpty)
            // The connection is still in sync: no stray body bytes were sent after the HEAD response.
            #expect(try client.request("GET", "/healthz").text == "ok")
        }
    }

    @Test func absoluteFormTargetsRouteOnTheirPath() throws {
        try TestServer.with(router()) { server in
            let response = try server.client().request("GET", "http://example.com/v1/passes/a/b?q=1")
            #expect(response.status == 200)
            #expect(try seen(response).parameters == ["passTypeIdentifier": "a", "serialNumber": "b"])
            #expect(try seen(response).query == ["q": "1"])
        }
    }

    @Test func emptyBodiesKeepTheConnectionInSync() throws {
        try TestServer.with(router()) { server in
            let client = try server.client()
            for status in [204, 200, 201, 304, 404] {
                let response = try client.request("PUT", "/empty/\(status)")
                #expect(response.status == status)
                #expect(response.body.isEmpty)
            }
            #expect(try client.request("GET", "/healthz").text == "ok")
        }
    }

    @Test(arguments: [
        "/v1/passes/a/b/", "/v1/passes/%2e%2e/%2e%2e", "/v1/passes/..%2F..%2Fetc/passwd", "/%00", "//", "/items/../items",
        "/v1/passes/a/%", "/v1/passes/%ZZ/b", "/items?bad=%", "*", "http://example.com/items",
    ])
    func oddPathsNeverCrash(target: String) throws {
        try TestServer.with(router()) { server in
            let response = try server.client().request("GET", target)
            #expect([200, 400, 404].contains(response.status), "\(target) → \(response.status)")
            if response.status >= 400 { #expect(response.errorCode != nil) }
            #expect(server.isHealthy())
        }
    }
}
