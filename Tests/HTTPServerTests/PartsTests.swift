import ByteEncoding
import Foundation
import PassServerTesting
import Testing

@testable import HTTPServer

/// Responses sent from runs of bytes held elsewhere (`Response.parts`): whole, with their length,
/// the runs shared between responses and kept alive until sent.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct PartsTests {
    @Test("a body of parts arrives whole with its Content-Length; HEAD gets the length and no body; the shared run serves every request")
    func partsArriveWhole() throws {
        // A large shared run, as a template's images are, and a small one per response.
        let shared = StableBytes((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        var router = echoRouter()
        router.get("/parts/:n") { request in
            let tail = Array("tail \(request.parameters["n"] ?? "")".utf8)
            return Response(headers: ["Content-Type": "application/octet-stream"], parts: [shared, StableBytes(tail)])
        }
        try TestServer.with(router) { server in
            let client = try server.client(timeout: 10)
            for index in 1...3 {
                let response = try client.request("GET", "/parts/\(index)")
                #expect(response.status == 200)
                let expected = shared.bytes + Array("tail \(index)".utf8)
                #expect(response.header("Content-Length") == String(expected.count))
                #expect(response.body.count == expected.count)
                #expect(response.body == expected, "response \(index) differs")
            }
            let head = try client.request("HEAD", "/parts/9")
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == String(shared.count + "tail 9".utf8.count))
            #expect(head.body.isEmpty)
            // The connection stays usable after both.
            #expect(try client.request("GET", "/healthz").status == 200)
            #expect(server.sink.lines.contains { $0.contains("path=/parts/1") && $0.contains("bytes=\(shared.count + 6)") })
        }
    }

    @Test("joinedBody and bodyCount read the parts; a response without parts keeps its body")
    func values() {
        let response = Response(parts: [StableBytes([1, 2]), StableBytes([]), StableBytes([3])])
        #expect(response.joinedBody == [1, 2, 3])
        #expect(response.bodyCount == 3)
        let plain = Response(body: [9, 8])
        #expect(plain.joinedBody == [9, 8] && plain.bodyCount == 2)
    }
}
