import HTTPServer
import PassServerTesting
import Testing

@Suite("HTTP/1.1 response parser: framing by Content-Length, chunked coding and close", .offCooperativePool)
struct HTTPResponseParserTests {
    /// Feeds `text` in pieces of `piece` bytes; returns the parser and the bytes it used in all.
    static func parse(_ text: String, piece: Int = Int.max, keepBody: Bool = true, head: Bool = false) throws -> (HTTPResponseParser, Int) {
        var parser = HTTPResponseParser(keepBody: keepBody, headRequest: head)
        let bytes = Array(text.utf8)
        var used = 0
        var offset = 0
        while offset < bytes.count, !parser.isComplete {
            let end = min(bytes.count, offset + piece)
            used += try bytes[offset..<end].withUnsafeBufferPointer { try parser.consume($0) }
            offset = end
        }
        return (parser, used)
    }

    @Test("Content-Length body, whole or byte by byte", arguments: [1, 3, 1000])
    func contentLength(piece: Int) throws {
        let (parser, _) = try Self.parse("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world", piece: piece)
        #expect(parser.isComplete)
        #expect(parser.result.status == 200)
        #expect(String(decoding: parser.result.body, as: UTF8.self) == "hello world")
        #expect(parser.result.header("content-type") == "text/plain")
        #expect(!parser.closeAfter)
    }

    @Test("chunked body with extensions and trailers, split at every boundary", arguments: [1, 2, 7, 1000])
    func chunked(piece: Int) throws {
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nExpires: never\r\n\r\n"
        let (parser, used) = try Self.parse(text, piece: piece)
        #expect(parser.isComplete)
        #expect(used == text.utf8.count)
        #expect(String(decoding: parser.result.body, as: UTF8.self) == "hello world")
        #expect(parser.result.bodyLength == 11)
    }

    @Test("a body delimited by the close completes at end of stream, and the connection is not reused")
    func untilClose() throws {
        var (parser, _) = try Self.parse("HTTP/1.1 200 OK\r\n\r\npartial body")
        #expect(!parser.isComplete)
        try parser.endOfStream()
        #expect(parser.isComplete)
        #expect(parser.closeAfter)
        #expect(String(decoding: parser.result.body, as: UTF8.self) == "partial body")
    }

    @Test("204, 304 and answers to HEAD have no body even with Content-Length")
    func bodyless() throws {
        for text in ["HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n"] {
            #expect(try Self.parse(text).0.isComplete)
        }
        let (head, _) = try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 61000\r\n\r\n", head: true)
        #expect(head.isComplete)
        #expect(head.result.bodyLength == 0)
    }

    @Test("an interim 100 Continue is skipped; the final answer counts")
    func interim() throws {
        let (parser, _) = try Self.parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", piece: 5)
        #expect(parser.result.status == 201)
        #expect(parser.result.body == Array("ok".utf8))
    }

    @Test("asked for interim answers, the 100 Continue is a response of its own and the final one follows")
    func interimDelivered() throws {
        var parser = HTTPResponseParser(keepBody: true, interimResponses: true)
        let bytes = Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok".utf8)
        let used = try bytes.withUnsafeBufferPointer { try parser.consume($0) }
        #expect(parser.isComplete && parser.result.status == 100)
        var final = HTTPResponseParser(keepBody: true, interimResponses: true)
        _ = try bytes[used...].withUnsafeBufferPointer { try final.consume($0) }
        #expect(final.result.status == 201 && final.result.body == Array("ok".utf8))
    }

    @Test("Connection: close and HTTP/1.0 end the connection; HTTP/1.0 keep-alive does not")
    func connectionReuse() throws {
        #expect(try Self.parse("HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n").0.closeAfter)
        #expect(try Self.parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").0.closeAfter)
        #expect(try !Self.parse("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n").0.closeAfter)
    }

    @Test("without keepBody only the length and the first four bytes are kept")
    func discardedBody() throws {
        let (parser, _) = try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nPK\u{3}\u{4}rest!!", piece: 3, keepBody: false)
        #expect(parser.result.body.isEmpty)
        #expect(parser.result.bodyLength == 10)
        #expect(parser.result.bodyPrefix == [0x50, 0x4B, 0x03, 0x04])
    }

    @Test("bytes after a complete response are not consumed")
    func leftover() throws {
        let text = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA"
        let (parser, used) = try Self.parse(text)
        #expect(parser.isComplete)
        #expect(used == text.utf8.count - 5)
    }

    @Test("malformed answers are protocol errors", arguments: [
        "HTTX/1.1 200 OK\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
        "HTTP/1.1 200 OK\r\nbad header\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
    ])
    func malformed(text: String) {
        #expect(throws: HTTPResponseParser.Failure.self) { try Self.parse(text) }
    }

    @Test("a close before or in the middle of a framed response is a failure")
    func earlyClose() throws {
        var empty = HTTPResponseParser(keepBody: true)
        #expect { try empty.endOfStream() } throws: { ($0 as? HTTPResponseParser.Failure)?.code == .connectionClosed }
        var (parser, _) = try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
        #expect(parser.receivedAny)
        #expect { try parser.endOfStream() } throws: { ($0 as? HTTPResponseParser.Failure)?.code == .connectionClosed }
    }

    @Test("a head over the limit is refused")
    func hugeHead() {
        let text = "HTTP/1.1 200 OK\r\nX-Filler: " + String(repeating: "a", count: HTTPResponseParser.maxHeadBytes) + "\r\n\r\n"
        #expect(throws: HTTPResponseParser.Failure.self) { try Self.parse(text, piece: 4096) }
    }
}
