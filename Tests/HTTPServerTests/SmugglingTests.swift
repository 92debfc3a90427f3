import Foundation
import PassServerTesting
import Testing

@testable import HTTPServer

/// Requests whose length could be read two ways get 400 and a closed connection, so nothing the
/// client sent after them can be taken for a second request.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct SmugglingTests {
    /// A request that would be answered if it were read as a request of its own.
    static let smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"

    static func router(calls: Counter) -> Router {
        var router = echoRouter()
        router.get("/smuggled") { _ in
            calls.increment()
            return .text("smuggled")
        }
        return router
    }

    /// Each shape libmicrohttpd 0.9.75 accepts on its own (checked over raw sockets).
    static let shapes: [String] = [
        // Two different lengths: libmicrohttpd takes the first and would read the rest as a new request.
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 40\r\n\r\nabcd" + smuggled,
        // Length and chunked together: chunked wins silently in libmicrohttpd, a proxy may use the length.
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
        // Transfer codings other than one chunked: libmicrohttpd reads until the connection closes.
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + smuggled,
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n" + smuggled,
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n" + smuggled,
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n" + smuggled,
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
        "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n" + smuggled,
        // Chunked in HTTP/1.0, where it does not exist.
        "POST /echo HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
        // NUL in a header value: libmicrohttpd passes it on; a proxy may cut the value there.
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\u{0}b\r\n\r\n" + smuggled,
        // NUL in a value cut short by libmicrohttpd itself: what follows it is dropped unseen.
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\u{0}, gzip\r\n\r\n0\r\n\r\n" + smuggled,
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Last: a\u{0}\r\n\r\n" + smuggled,
        // NUL in the request target: libmicrohttpd would route on the part before it.
        "GET /smuggled\u{0}/../healthz HTTP/1.1\r\nHost: x\r\n\r\n",
        // Obsolete line folding: libmicrohttpd joins the lines, a proxy may not.
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\n\r\n" + smuggled,
        // Whitespace before the colon: libmicrohttpd keeps it as part of the name.
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n" + smuggled,
    ]

    @Test(arguments: shapes)
    func refusedWith400AndAClosedConnection(request: String) throws {
        let calls = Counter()
        try TestServer.with(Self.router(calls: calls)) { server in
            let client = try server.client(timeout: 5)
            client.send(request)
            let response = try #require(try client.readResponse(), "an answer, not silence")
            #expect(response.status == 400)
            #expect(response.errorCode == "malformed_request", "\(response.text)")
            #expect(response.header("Connection")?.lowercased() == "close")
            #expect(client.waitForClose(seconds: 5), "the connection is closed")
            #expect(calls.value == 0, "the request hidden behind it was never answered")
            #expect(server.isHealthy())
            // The same request sent on its own is answered and counted.
            #expect(try server.client().request("GET", "/smuggled").text == "smuggled")
            #expect(calls.value == 1)
        }
    }

    /// Long heads, heads that arrive in pieces, bare LF line ends and odd whitespace are not
    /// mistaken for dropped bytes.
    @Test func soundHeadsOfEveryShapeAreAccepted() throws {
        let calls = Counter()
        try TestServer.with(Self.router(calls: calls)) { server in
            // 14.6 KB: long, yet within the 16 KiB head limit.
            let big = (0..<16).map { "X-Field-\($0): " + String(repeating: "v", count: 900) + "\r\n" }.joined()
            let requests = [
                "GET /healthz?a=b&c=%20d HTTP/1.1\r\nHost: x\r\n\(big)\r\n",
                "GET /healthz HTTP/1.1\nHost: x\nX-A: b\n\n",
                "GET /healthz HTTP/1.1\r\nHost:x\r\nX-Spaced:   a b   \r\nX-Empty:\r\nX-Tab:\tt\r\n\r\n",
                "GET /healthz HTTP/1.0\r\n\r\n",
            ]
            for request in requests {
                let client = try server.client()
                client.send(request)
                #expect(try client.readResponse()?.status == 200, "\(request.prefix(60))")
            }
            // A head trickling in over several reads, then a second request on the same connection.
            let client = try server.client()
            let head = Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\(big)\r\n".utf8)
            for start in stride(from: 0, to: head.count, by: 1_500) {
                client.send(Array(head[start..<min(start + 1_500, head.count)]))
                usleep(20_000)
            }
            #expect(try client.readResponse()?.status == 200)
            #expect(try client.request("POST", "/echo", body: Array("abc".utf8)).text == "abc")
            #expect(try client.request("GET", "/healthz", headers: [("X-After", "body")]).status == 200)
            #expect(calls.value == 0)
        }
    }

    @Test func headLayoutRulesAsAPureFunction() {
        // "GET /x HTTP/1.1\r\nHost: x\r\nX-A: abc\r\n\r\n"
        var head = RequestHead(
            methodLength: 3, target: (start: 4, length: 2), version: (start: 7, length: 8),
            fields: [(start: 17, end: 24), (start: 26, end: 34)], size: 38
        )
        #expect(head.problem == nil)
        head.fields[1].end = 32  // "X-A: a\0c\r\n": the value ends early
        #expect(head.problem == "A header line contains a NUL byte.")
        head.fields = [(start: 17, end: 24), (start: 30, end: 34)]  // bytes between two lines
        #expect(head.problem == "A header line contains a NUL byte.")
        head.fields = [(start: 17, end: 24), (start: 16_000, end: 16_010)]  // rebuilt elsewhere
        #expect(head.problem == "A header is folded over several lines (obsolete line folding).")
        head.fields = [(start: 17, end: 24), (start: 26, end: 34)]
        head.target.length = 1  // "GET /\0 HTTP/1.1"
        #expect(head.problem == "The request line contains a NUL byte or stray whitespace.")
        head.target = (start: -4_000, length: 2)  // not an in-place parse: no opinion
        #expect(head.problem == nil)
        head.target = (start: 4, length: 2)
        head.size = 0
        #expect(head.problem == nil)
    }

    /// Shapes libmicrohttpd refuses by itself (with its own HTML body) or that are sound.
    @Test func soundAndLibraryRefusedShapes() throws {
        let calls = Counter()
        try TestServer.with(Self.router(calls: calls)) { server in
            // Identical duplicate lengths and a chunked coding in any letter case are fine.
            let same = try server.client()
            same.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 4\r\n\r\nabcd")
            #expect(try same.readResponse()?.text == "abcd")
            let chunked = try server.client()
            chunked.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n")
            #expect(try chunked.readResponse()?.text == "abcd")
            // A comma list in Content-Length and a NUL in a header name: libmicrohttpd's own 400, then close.
            for request in [
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4, 40\r\n\r\nabcd" + Self.smuggled,
                "GET /healthz HTTP/1.1\r\nHost: x\r\nX-\u{0}Note: a\r\n\r\n" + Self.smuggled,
            ] {
                let client = try server.client(timeout: 5)
                client.send(request)
                #expect(try client.readResponse()?.status == 400)
                #expect(client.waitForClose(seconds: 5))
            }
            #expect(calls.value == 0)
        }
    }
}
