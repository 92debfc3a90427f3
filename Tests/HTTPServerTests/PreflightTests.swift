import Foundation
import PassServerTesting
import Testing

@testable import HTTPServer

/// A route's preflight answers from the headers alone, before any body byte is read.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct PreflightTests {
    static func router(handled: Counter) -> Router {
        var router = echoRouter()
        router.post(
            "/upload",
            maxBodySize: 2 << 20,
            preflight: { request in
                guard request.headers["Authorization"] == "Bearer ok" else {
                    throw HTTPError(status: 401, code: "unauthorized", message: "No.")
                }
                #expect(request.body.isEmpty, "a preflight never sees a body")
            },
            { request in
                handled.increment()
                return .text("got \(request.body.count)")
            }
        )
        return router
    }

    @Test func refusedBeforeTheBodyWithExpectContinue() throws {
        let handled = Counter()
        try TestServer.with(Self.router(handled: handled)) { server in
            let client = try server.client(timeout: 5)
            client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\nExpect: 100-continue\r\n\r\n")
            let response = try #require(try client.readResponse())
            #expect(response.status == 401, "the refusal comes instead of 100 Continue")
            #expect(response.errorCode == "unauthorized")
            #expect(client.waitForClose(seconds: 5), "the unread body is never read")
            #expect(handled.value == 0)
        }
    }

    @Test func refusedBeforeTheBodyWithoutExpectContinue() throws {
        let handled = Counter()
        try TestServer.with(Self.router(handled: handled)) { server in
            let client = try server.client(timeout: 5)
            client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n")
            // The answer arrives although not one body byte was sent.
            #expect(try client.readResponse()?.status == 401)
            #expect(handled.value == 0)
        }
    }

    @Test func passingPreflightReadsTheBodyAndRunsTheHandler() throws {
        let handled = Counter()
        try TestServer.with(Self.router(handled: handled)) { server in
            let client = try server.client()
            client.send("POST /upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ok\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            #expect(try client.readResponse()?.status == 100)
            client.send("hello")
            #expect(try client.readResponse()?.text == "got 5")
            // Without a body the refusal keeps the connection usable.
            #expect(try client.request("POST", "/upload").status == 401)
            #expect(try client.request("GET", "/healthz").status == 200)
            #expect(handled.value == 1)
        }
    }
}
