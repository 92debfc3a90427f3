import Foundation
import Glibc
import PassServerTesting
import Synchronization
import Testing

@testable import HTTPServer

/// Streamed responses: chunked, pulled as the client reads, cut short on an error.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct StreamingTests {
    /// A route streaming `pieces(index)` until it returns nil, counting the pieces it produced.
    static func router(produced: Counter, piece: @escaping @Sendable (Int) throws -> [UInt8]?) -> Router {
        var router = echoRouter()
        router.get("/stream") { _ in
            let next = Mutex(0)
            return .streamed(headers: ["Content-Type": "text/plain"], BodyStream {
                let index = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                let result = try piece(index)
                if result != nil { produced.increment() }
                return result
            })
        }
        return router
    }

    @Test func theBodyArrivesChunkedAndWhole() throws {
        let produced = Counter()
        // Pieces of growing size, some empty (the server asks again), 300 in all.
        let router = Self.router(produced: produced) { index in
            guard index < 300 else { return nil }
            return index % 7 == 0 ? [] : Array(repeating: UInt8(ascii: "a") + UInt8(index % 26), count: index * 37)
        }
        try TestServer.with(router) { server in
            let client = try server.client()
            let response = try client.request("GET", "/stream")
            #expect(response.status == 200)
            #expect(response.header("Transfer-Encoding")?.lowercased() == "chunked")
            #expect(response.header("Content-Length") == nil)
            var expected: [UInt8] = []
            for index in 0..<300 where index % 7 != 0 {
                expected += Array(repeating: UInt8(ascii: "a") + UInt8(index % 26), count: index * 37)
            }
            #expect(response.body == expected)
            #expect(produced.value == 300)
            // The connection stays usable after a streamed response.
            #expect(try client.request("GET", "/healthz").status == 200)
            #expect(server.sink.lines.contains { $0.contains(" request ") && $0.contains("path=/stream") && $0.contains("note=streamed") })
        }
    }

    @Test func piecesArePulledAsTheClientReads() throws {
        let produced = Counter()
        let piece = [UInt8](repeating: 120, count: 64 << 10)
        // 10,000 pieces of 64 KiB: 640 MiB if it were produced up front.
        let router = Self.router(produced: produced) { index in index < 10_000 ? piece : nil }
        try TestServer.with(router) { server in
            let client = try server.client(timeout: 5)
            client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            // The client reads nothing: the server may fill the socket buffers, then must wait.
            let deadline = Date().addingTimeInterval(10)
            var last = -1
            while Date() < deadline, produced.value != last {
                last = produced.value
                usleep(500_000)
            }
            #expect(produced.value > 0, "streaming started")
            #expect(produced.value < 1_000, "\(produced.value) pieces produced for a client that reads nothing")
            #expect(server.isHealthy(), "other clients are served meanwhile")
        }
    }

    @Test func anErrorCutsTheResponseShort() throws {
        struct Broken: Error {}
        let produced = Counter()
        let router = Self.router(produced: produced) { index in
            guard index < 3 else { throw Broken() }
            return Array("piece \(index)\n".utf8)
        }
        try TestServer.with(router) { server in
            #expect(throws: TestClient.Failure.self) { _ = try server.client().request("GET", "/stream") }
            #expect(server.sink.lines.contains { $0.contains("streamed response failed; the connection is closed") })
            #expect(server.isHealthy())
        }
    }

    @Test func headSendsNoBody() throws {
        let produced = Counter()
        let router = Self.router(produced: produced) { index in index < 5 ? Array("x".utf8) : nil }
        try TestServer.with(router) { server in
            let client = try server.client()
            let response = try client.request("HEAD", "/stream")
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            #expect(try client.request("GET", "/healthz").status == 200, "no stray body bytes on the connection")
            #expect(produced.value == 0, "the stream is not pulled for HEAD")
        }
    }
}
