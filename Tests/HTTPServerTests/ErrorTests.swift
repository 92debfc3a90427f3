import Foundation
import HTTPServer
import PassServerTesting
import Testing

private struct DatabaseDown: Error {}

/// Errors thrown by handlers and malformed traffic.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct ErrorTests {
    private func router() -> Router {
        var router = echoRouter()
        router.get("/teapot") { _ in
            throw HTTPError(status: 418, code: "teapot", message: "I am a teapot.", headers: ["Retry-After": "7"])
        }
        router.get("/broken") { _ in throw DatabaseDown() }
        router.post("/decode") { request in
            struct Input: Decodable { var name: String }
            return .text(try request.decode(Input.self).name)
        }
        router.get("/bad-status") { _ in Response(status: 42) }
        router.get("/inject") { _ in Response(headers: ["X-Evil": "a\r\nInjected: 1", "X-Fine": "ok"], body: Array("x".utf8)) }
        return router
    }

    @Test func httpErrorIsRenderedAsItsJSON() throws {
        try TestServer.with(router()) { server in
            let response = try server.client().request("GET", "/teapot")
            #expect(response.status == 418)
            #expect(response.errorCode == "teapot")
            #expect(response.text.contains("I am a teapot."))
            #expect(response.header("Retry-After") == "7")
        }
    }

    @Test func otherErrorsBecomeGeneric500AndAreLogged() throws {
        try TestServer.with(router()) { server in
            let response = try server.client().request("GET", "/broken")
            #expect(response.status == 500)
            #expect(response.errorCode == "internal_error")
            #expect(!response.text.contains("DatabaseDown"))
            let id = try #require(response.header("X-Request-ID"))
            #expect(server.sink.lines.contains { $0.contains("handler failed") && $0.contains(id) && $0.contains("DatabaseDown") })
        }
    }

    @Test func badJSONIs400() throws {
        try TestServer.with(router()) { server in
            let client = try server.client()
            let bad = try client.request("POST", "/decode", body: Array("{nope".utf8))
            #expect(bad.status == 400)
            #expect(bad.errorCode == "malformed_json")
            let good = try client.request("POST", "/decode", body: Array(#"{"name":"Ada"}"#.utf8))
            #expect(good.text == "Ada")
        }
    }

    @Test func invalidHandlerStatusBecomes500() throws {
        try TestServer.with(router()) { server in
            let response = try server.client().request("GET", "/bad-status")
            #expect(response.status == 500)
            #expect(response.errorCode == "internal_error")
        }
    }

    @Test func headerValuesCannotInjectHeaders() throws {
        try TestServer.with(router()) { server in
            let client = try server.client()
            let response = try client.request("GET", "/inject")
            #expect(response.status == 200)
            #expect(response.header("Injected") == nil)
            #expect(response.header("X-Fine") == "ok")
            #expect(try client.request("GET", "/healthz").text == "ok")
        }
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n",
        "GET\r\n\r\n",
        "GET / HTTP/9.9\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        "GET / HTTP/1.1\r\nBad Header Line\r\n\r\n",
        "GET /healthz HTTP/1.1\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n",
        "\u{01}\u{02}\u{03}\u{ff}\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n",
    ])
    func garbageGets400OrCloseAndServerStaysHealthy(bytes: String) throws {
        try TestServer.with(router()) { server in
            let client = try server.client(timeout: 10)
            client.send(bytes)
            // An answer, or the connection closed: a read that times out (the server waiting for
            // more of a request it should have refused) throws and fails the test.
            if let response = try client.readResponse() {
                #expect(response.status >= 400 && response.status < 600 && response.status != 500, "got \(response.status)")
            }
            #expect(server.isHealthy())
        }
    }

    @Test func randomBytesNeverCrash() throws {
        try TestServer.with(router()) { server in
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<10 {
                let client = try server.client(timeout: 10)
                let bytes = (0..<Int.random(in: 1...2048, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) } + [13, 10, 13, 10]
                client.send(bytes)
                // An error answer or a closed connection; never silence until the read times out.
                do {
                    if let response = try client.readResponse() { #expect(response.status >= 400, "\(bytes)") }
                } catch let failure as TestClient.Failure {
                    // A refusal may close the connection while the request is still being sent.
                    #expect(!failure.description.contains("timed out"), "\(failure) after \(bytes)")
                }
            }
            #expect(server.isHealthy())
        }
    }
}
