import Foundation
import Glibc

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

    /// Reads one response; nil when the connection closed before a status line arrived.
    public func readResponse(method: String = "GET") throws -> TestResponse? {
        guard let headEnd = try fill(until: { $0.firstRange(of: [13, 10, 13, 10]) }) else { return nil }
        let head = String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self)
        buffer.removeSubrange(..<headEnd.upperBound)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(description: "bad status line: \(head)") }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = TestResponse(status: status, headers: headers, body: [])
        if method == "HEAD" || status < 200 || status == 204 || status == 304 { return response }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            guard try fill(until: { $0.count >= length ? length : nil }) != nil else { throw Failure(description: "short body") }
            response.body = Array(buffer[..<length])
            buffer.removeSubrange(..<length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            response.body = try readChunkedBody()
        } else {
            while try readMore() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// A chunked body (RFC 9112 §7.1), decoded strictly: a connection that ends before the last
    /// (empty) chunk is an error, never a shorter body.
    private func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            guard let lineEnd = try fill(until: { $0.firstRange(of: [13, 10]) }) else {
                throw Failure(description: "incomplete chunked body: the connection ended after \(body.count) bytes")
            }
            let line = String(decoding: buffer[..<lineEnd.lowerBound], as: UTF8.self)
            buffer.removeSubrange(..<lineEnd.upperBound)
            guard let size = Int(line.split(separator: ";").first.map(String.init) ?? "", radix: 16), size >= 0 else {
                throw Failure(description: "bad chunk size line: \(line)")
            }
            if size == 0 {
                // Trailer fields, up to an empty line.
                while true {
                    guard let end = try fill(until: { $0.firstRange(of: [13, 10]) }) else {
                        throw Failure(description: "incomplete chunked body: no end after the last chunk")
                    }
                    let empty = end.lowerBound == 0
                    buffer.removeSubrange(..<end.upperBound)
                    if empty { return body }
                }
            }
            guard try fill(until: { $0.count >= size + 2 ? size : nil }) != nil else {
                throw Failure(description: "incomplete chunked body: the connection ended inside a chunk after \(body.count) bytes")
            }
            body.append(contentsOf: buffer[..<size])
            guard buffer[size] == 13, buffer[size + 1] == 10 else { throw Failure(description: "a chunk does not end with CRLF") }
            buffer.removeSubrange(..<(size + 2))
        }
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

    private func fill<T>(until found: ([UInt8]) -> T?) throws -> T? {
        while true {
            if let value = found(buffer) { return value }
            guard try readMore() else { return nil }
        }
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
