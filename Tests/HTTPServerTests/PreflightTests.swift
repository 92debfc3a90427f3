import Foundation
import PassServerTesting
import Testing

@testable import HTTPServer

/// A route's preflight answers from the headers alone, before any body byte is read.
///
/// The refused requests declare a body and the client sends it after the refusal, as a client
/// that does not wait would: the handler never runs and never sees a byte of it, while the
/// passing preflight shows that the same counters count a body that is read.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct PreflightTests {
    static let bodySize = 1 << 20
    static let body = [UInt8](repeating: 0x61, count: bodySize)

    /// `handled` counts the handler's runs, `bodyBytes` the body bytes it was given.
    static func router(handled: Counter, bodyBytes: Counter) -> Router {
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
                bodyBytes.add(request.body.count)
                return .text("got \(request.body.count)")
            }
        )
        return router
    }

    /// Sends the head of an upload of `bodySize` bytes without credentials, reads the answer, then
    /// sends the body anyway. Expects the refusal to have come from the headers alone, the
    /// connection to have been closed before the body was sent, and the handler never to have run.
    static func expectRefusedUnread(expectContinue: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let handled = Counter()
        let bodyBytes = Counter()
        try TestServer.with(router(handled: handled, bodyBytes: bodyBytes)) { server in
            let client = try server.client(timeout: 5)
            let expect = expectContinue ? "Expect: 100-continue\r\n" : ""
            client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: \(bodySize)\r\n\(expect)\r\n")
            let answer = try? client.readResponse()
            let closedBeforeBody = client.waitForClose(seconds: 5)
            client.send(body)
            // Time for a server that read the body after all to run the handler.
            _ = client.waitForClose(seconds: 2)

            let note: Comment = expectContinue
                ? "the refusal comes instead of 100 Continue" : "the answer arrives although not one body byte was sent"
            #expect(answer?.status == 401, note, sourceLocation: sourceLocation)
            #expect(answer?.errorCode == "unauthorized", sourceLocation: sourceLocation)
            #expect(closedBeforeBody, "the connection is closed before the body is sent: not a byte of it is read", sourceLocation: sourceLocation)
            #expect(handled.value == 0, "the handler never ran", sourceLocation: sourceLocation)
            #expect(bodyBytes.value == 0, "no body byte reached a handler", sourceLocation: sourceLocation)
            #expect(server.isHealthy(), sourceLocation: sourceLocation)
        }
    }

    @Test func refusedBeforeTheBodyWithExpectContinue() throws {
        try Self.expectRefusedUnread(expectContinue: true)
    }

    @Test func refusedBeforeTheBodyWithoutExpectContinue() throws {
        try Self.expectRefusedUnread(expectContinue: false)
    }

    @Test func passingPreflightReadsTheBodyAndRunsTheHandler() throws {
        let handled = Counter()
        let bodyBytes = Counter()
        try TestServer.with(Self.router(handled: handled, bodyBytes: bodyBytes)) { server in
            let client = try server.client()
            client.send("POST /upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ok\r\nContent-Length: \(Self.bodySize)\r\nExpect: 100-continue\r\n\r\n")
            #expect(try client.readResponse()?.status == 100)
            client.send(Self.body)
            #expect(try client.readResponse()?.text == "got \(Self.bodySize)")
            // Without a body the refusal keeps the connection usable.
            #expect(try client.request("POST", "/upload").status == 401)
            #expect(try client.request("GET", "/healthz").status == 200)
            #expect(handled.value == 1)
            #expect(bodyBytes.value == Self.bodySize, "the counters count a body that is read")
        }
    }
}
