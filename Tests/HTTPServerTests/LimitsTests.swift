import Foundation
import HTTPServer
import PassServerTesting
import Testing

/// Body, header, time and connection limits.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct LimitsTests {
    @Test func bodyOverOneMebibyteIs413AndTheServerStaysHealthy() throws {
        try TestServer.with(echoRouter()) { server in
            let exact = [UInt8](repeating: 7, count: 1 << 20)
            let accepted = try server.client().request("POST", "/echo", body: exact)
            #expect(accepted.status == 200)
            #expect(accepted.body == exact)

            let client = try server.client()
            let rejected = try client.request("POST", "/echo", body: exact + [7])
            #expect(rejected.status == 413)
            #expect(rejected.errorCode == "payload_too_large")
            #expect(server.isHealthy())
        }
    }

    @Test func declaredLengthOverTheLimitIsRejectedBeforeTheBodyIsSent() throws {
        try TestServer.with(echoRouter()) { server in
            let client = try server.client()
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000000\r\nExpect: 100-continue\r\n\r\n")
            let response = try #require(try client.readResponse())
            #expect(response.status == 413)
            #expect(response.errorCode == "payload_too_large")
        }
    }

    @Test func expectContinueWithinTheLimitGetsTheBody() throws {
        try TestServer.with(echoRouter()) { server in
            let client = try server.client()
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let interim = try #require(try client.readResponse())
            #expect(interim.status == 100)
            client.send("hello")
            let response = try #require(try client.readResponse())
            #expect(response.status == 200)
            #expect(response.text == "hello")
        }
    }

    @Test func routeLimitOverridesTheDefault() throws {
        try TestServer.with(echoRouter()) { server in
            #expect(try server.client().request("POST", "/small", body: Array(repeating: 1, count: 16)).text == "got 16")
            let response = try server.client().request("POST", "/small", body: Array(repeating: 1, count: 17))
            #expect(response.status == 413)
        }
    }

    @Test func chunkedBodyIsCutOffAtTheLimit() throws {
        try TestServer.with(echoRouter()) { server in
            // Within the limit: reassembled.
            let small = try server.client()
            small.send("POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n")
            #expect(try small.readResponse()?.text == "got 8")

            // Slightly over: read to the end, answered 413.
            let over = try server.client()
            over.send("POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n1\r\nX\r\n0\r\n\r\n")
            let response = try #require(try over.readResponse())
            #expect(response.status == 413)
            #expect(response.errorCode == "payload_too_large")

            // Far over and still sending: the connection is closed, not read forever.
            let flood = try server.client(timeout: 10)
            flood.send("POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = Array("1000\r\n".utf8) + [UInt8](repeating: 65, count: 4096) + Array("\r\n".utf8)
            var sends = 0
            while sends < 200, flood.send(chunk) { sends += 1 }
            #expect(sends < 200 || flood.waitForClose(seconds: 10))
            #expect(server.isHealthy())
        }
    }

    @Test func oversizedHeadersAreRefusedWithoutHarm() throws {
        try TestServer.with(echoRouter(), configure: { $0.maxHeaderSize = 8192 }) { server in
            let client = try server.client(timeout: 10)
            let filler = String(repeating: "v", count: 4000)
            var head = "GET /healthz HTTP/1.1\r\nHost: x\r\n"
            for index in 0..<8 { head += "X-Filler-\(index): \(filler)\r\n" }
            client.send(head + "\r\n")
            // Refused with an answer or a close; a read that times out throws and fails the test.
            if let response = try client.readResponse() {
                #expect([400, 413, 414, 431].contains(response.status), "got \(response.status)")
            }
            let longTarget = try server.client(timeout: 10)
            longTarget.send("GET /healthz?\(String(repeating: "a", count: 20000)) HTTP/1.1\r\nHost: x\r\n\r\n")
            if let response = try longTarget.readResponse() {
                #expect([400, 413, 414, 431].contains(response.status), "got \(response.status)")
            }
            #expect(server.isHealthy())
        }
    }

    @Test(arguments: ["POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf", "GET /healthz HTTP/1.1\r\nHo", ""])
    func stalledRequestIsDisconnectedAfterTheTimeout(partial: String) throws {
        try TestServer.with(echoRouter(), configure: { $0.connectionTimeout = .seconds(1) }) { server in
            let client = try server.client(timeout: 1)
            let started = ContinuousClock.now
            client.send(partial)
            #expect(client.waitForClose(seconds: 20))
            #expect(ContinuousClock.now - started >= .milliseconds(900))
            #expect(server.isHealthy())
        }
    }

    @Test("a connection beyond maxConnections is closed at once; a freed slot lets new ones in")
    func connectionsBeyondTheCapAreClosed() throws {
        try TestServer.with(echoRouter(), configure: { $0.maxConnections = 2; $0.threads = 1 }) { server in
            let first = try server.client()
            let second = try server.client()
            #expect(try first.request("GET", "/healthz").status == 200)
            #expect(try second.request("GET", "/healthz").status == 200)
            // Closed, not left waiting: the read ends the stream (nil) long before its 10 s
            // timeout, which would throw.
            let third = try server.client(timeout: 10)
            third.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let started = ContinuousClock.now
            #expect(try third.readResponse() == nil)
            #expect(ContinuousClock.now - started < .seconds(5))
            // Freeing a slot lets a new connection in.
            _ = consume first
            _ = consume third
            #expect(try eventuallyServed(server))
            #expect(try second.request("GET", "/healthz").status == 200)
        }
    }

    /// Whether a new connection is answered within 5 s (the freed slot is released when
    /// libmicrohttpd reports the close, a moment after the client's).
    private func eventuallyServed(_ server: TestServer) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if server.isHealthy() { return true }
            usleep(50_000)
        }
        return false
    }
}
