import Foundation
import Glibc
import HTTPServer

/// A raw HTTP/1.1 client over a POSIX socket: writes exactly the bytes a test gives it and parses
/// the response by hand, so tests can send malformed or stalled requests that URLSession cannot.
public final class TestClient {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port` from `source` (another loopback address plays another client);
    /// reads give up after `timeout` seconds.
    public init(port: Int, timeout: Int = 15, source: String = "127.0.0.1") throws {
        fd = try Self.connect(port: port, source: source, timeout: timeout)
    }

    /// A blocking TCP socket from `source` to 127.0.0.1:`port` whose reads and writes give up after
    /// `timeout` seconds; the caller closes it.
    public static func connect(port: Int, source: String = "127.0.0.1", timeout: Int = 15) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        func call(_ step: String, host: String, port: Int, _ operation: (UnsafePointer<sockaddr>, socklen_t) -> Int32) throws {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr(host)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { operation($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard result == 0 else {
                let number = errno
                close(fd)
                throw Failure(description: "\(step) failed: errno \(number)")
            }
        }
        // Bind only to play another client: an explicit bind takes its port from the space that
        // listeners use, so a test re-listening on a port it just freed could find it taken.
        if source != "127.0.0.1" {
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            try call("bind to \(source)", host: source, port: 0) { bind(fd, $0, $1) }
        }
        try call("connect", host: "127.0.0.1", port: port) { Glibc.connect(fd, $0, $1) }
        return fd
    }

    deinit { close(fd) }

    /// Writes all bytes; returns false when the peer has closed the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends a request with `Host` and, for a body, `Content-Length`; then reads the response.
    public func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> TestResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        send(Array(head.utf8) + body)
        guard let response = try readResponse(method: method) else { throw Failure(description: "connection closed") }
        return response
    }

    /// Reads one response (an interim 1xx one included); nil when the connection closed before
    /// any of it arrived. Framing is `HTTPResponseParser`'s: a connection that ends before a
    /// framed body is complete is an error, never a shorter body.
    public func readResponse(method: String = "GET") throws -> TestResponse? {
        var parser = HTTPResponseParser(keepBody: true, headRequest: method == "HEAD", interimResponses: true)
        while !parser.isComplete {
            if buffer.isEmpty {
                guard try readMore() else {
                    guard parser.receivedAny else { return nil }
                    do throws(HTTPResponseParser.Failure) { try parser.endOfStream() } catch { throw Failure(description: error.message) }
                    continue
                }
            }
            let used: Int
            do throws(HTTPResponseParser.Failure) {
                used = try buffer.withUnsafeBufferPointer { bytes throws(HTTPResponseParser.Failure) in try parser.consume(bytes) }
            } catch {
                throw Failure(description: error.message)
            }
            buffer.removeFirst(used)
        }
        let response = parser.result
        return TestResponse(status: response.status, headers: response.headers.map { ($0.name, $0.value) }, body: response.body)
    }

    /// Whether the server has closed the connection (EOF or reset), without waiting or consuming data.
    public var isClosedByPeer: Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Whether the server closes the connection (EOF or reset) before `seconds` pass; data is skipped.
    public func waitForClose(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 { return true }
            if count < 0 && errno != EAGAIN && errno != EWOULDBLOCK { return true }
        }
        return false
    }

    /// Reads once; false at end of stream or on a reset.
    private func readMore() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &chunk, chunk.count, 0)
        if count > 0 {
            buffer.append(contentsOf: chunk[..<count])
            return true
        }
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw Failure(description: "read timed out") }
        return false
    }
}

/// A parsed response.
public struct TestResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The `{"error":{"code":...}}` code, if the body is such an error.
    public var errorCode: String? {
        struct Body: Decodable { struct Detail: Decodable { var code: String; var message: String }; var error: Detail }
        return (try? JSONDecoder().decode(Body.self, from: Data(body)))?.error.code
    }
}
