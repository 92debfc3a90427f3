import Foundation
import HTTPServer
import PassServerTesting
import Testing

/// An error of another library, rendered by a conformance added by the code that uses it.
private struct BackendDown: Error, CustomStringConvertible {
    var busy: Bool
    var description: String { "BackendDown(busy: \(busy)) secret-detail" }
}

extension BackendDown: RenderableError {
    var status: Int { 503 }
    var errorCode: String { "unavailable" }
    var errorMessage: String { busy ? "Busy; try again shortly." : "Down; try again shortly." }
    var headers: HTTPHeaders { ["Retry-After": busy ? "1" : "5"] }
}

/// A bug surfacing as a rendered 500.
private struct Corrupted: RenderableError, CustomStringConvertible {
    var status: Int { 500 }
    var errorCode: String { "internal_error" }
    var errorMessage: String { "An unexpected error occurred." }
    var description: String { "Corrupted(page 7)" }
}

/// An error that writes its whole response itself.
private struct Teapot: RenderableError {
    var status: Int { 418 }
    var errorCode: String { "teapot" }
    var errorMessage: String { "short and stout" }
    var response: Response { .text("I am a teapot", status: 418, headers: ["X-Spout": "1"]) }
}

/// Errors that choose their own status, body and headers (`RenderableError`).
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct RenderableErrorTests {
    private func router() -> Router {
        var router = echoRouter()
        router.get("/down") { request in throw BackendDown(busy: request.query["busy"] != nil) }
        router.get("/corrupted") { _ in throw Corrupted() }
        router.get("/teapot") { _ in throw Teapot() }
        return router
    }

    @Test func renderedWithItsStatusJSONAndHeaders() throws {
        try TestServer.with(router()) { server in
            let client = try server.client()
            let down = try client.request("GET", "/down")
            #expect(down.status == 503)
            #expect(down.header("Content-Type") == "application/json")
            #expect(down.text == #"{"error":{"code":"unavailable","message":"Down; try again shortly."}}"#)
            #expect(down.header("Retry-After") == "5")
            #expect(down.header("X-Request-ID") != nil)
            let busy = try client.request("GET", "/down?busy=1")
            #expect(busy.status == 503)
            #expect(busy.header("Retry-After") == "1")
            #expect(busy.text.contains("Busy; try again shortly."))
        }
    }

    @Test func a5xxIsExplainedInTheAccessLogOnlyAndNeverToTheClient() throws {
        try TestServer.with(router()) { server in
            let response = try server.client().request("GET", "/down")
            let id = try #require(response.header("X-Request-ID"))
            #expect(!response.text.contains("secret-detail"))
            let access = server.sink.lines.filter { $0.contains(id) && $0.contains("status=503") }
            #expect(access.count == 1, "\(server.sink.lines)")
            #expect(access.first?.contains("BackendDown(busy: false)") == true)
            // Not a bug of the server: no error-level "handler failed" line for it.
            #expect(!server.sink.lines.contains { $0.contains("handler failed") && $0.contains(id) })
        }
    }

    @Test func aRendered500IsLoggedAsAFailure() throws {
        try TestServer.with(router()) { server in
            let response = try server.client().request("GET", "/corrupted")
            #expect(response.status == 500)
            #expect(response.errorCode == "internal_error")
            #expect(!response.text.contains("page 7"))
            let id = try #require(response.header("X-Request-ID"))
            #expect(server.sink.lines.contains { $0.contains("handler failed") && $0.contains(id) && $0.contains("Corrupted(page 7)") })
        }
    }

    @Test func aCustomResponseIsSentAsIs() throws {
        try TestServer.with(router()) { server in
            let response = try server.client().request("GET", "/teapot")
            #expect(response.status == 418)
            #expect(response.text == "I am a teapot")
            #expect(response.header("X-Spout") == "1")
            #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
        }
    }

    @Test func theDefaultResponseAddsHeadersToTheJSONBody() {
        let response = BackendDown(busy: true).response
        #expect(response.status == 503)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Retry-After"] == "1")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":{"code":"unavailable","message":"Busy; try again shortly."}}"#)
        let http = HTTPError(status: 429, code: "rate_limited", message: "Slow down.", headers: ["Retry-After": "60"])
        #expect(http.response.status == 429)
        #expect(http.response.headers["Retry-After"] == "60")
        #expect(http.errorCode == "rate_limited")
        #expect(http.errorMessage == "Slow down.")
    }
}
