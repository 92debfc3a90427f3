import Foundation
import Synchronization

/// A tiny HTTP/1.1 server on 127.0.0.1 for the client tests, answering by path:
/// `/length` (Content-Length), `/chunked` (chunks written separately), `/close` (Connection: close),
/// `/drop-once` (the first time, closes without answering), `/busy-once` (the first time, 503 with
/// `Retry-After: 1`), `/silent` (never answers).
/// One thread per connection, blocking sockets; the listener gives up after `stop()`.
final class ScriptedHTTPServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let state = Mutex((accepted: 0, dropped: false, busy: false, stopped: false, requests: [String]()))

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard ok else { throw FleetTestFailure("cannot listen") }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    var accepted: Int { state.withLock { $0.accepted } }

    /// The request targets answered so far, in order.
    var requests: [String] { state.withLock { $0.requests } }

    func stop() {
        state.withLock { $0.stopped = true }
    }

    private func acceptLoop() {
        while !state.withLock({ $0.stopped }) {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            state.withLock { $0.accepted += 1 }
            Thread { [self] in serve(fd) }.start()
        }
        close(listener)
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            while buffer.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
                let count = recv(fd, &chunk, chunk.count, 0)
                guard count > 0 else { return }
                buffer.append(contentsOf: chunk[..<count])
            }
            guard let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
            buffer.removeSubrange(..<end.upperBound)
            let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            state.withLock { $0.requests.append(path) }
            switch path {
            case "/length":
                write(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
            case "/chunked":
                write(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                for part in ["4\r\nWiki\r\n", "5\r\npedia\r\n", "0\r\n\r\n"] {
                    usleep(10_000)
                    write(fd, part)
                }
            case "/close":
                write(fd, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")
                return
            case "/drop-once":
                let first = state.withLock { state -> Bool in
                    defer { state.dropped = true }
                    return !state.dropped
                }
                if first { return }
                write(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nagain")
            case "/busy-once":
                let first = state.withLock { state -> Bool in
                    defer { state.busy = true }
                    return !state.busy
                }
                if first {
                    write(fd, "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 2\r\n\r\n{}")
                } else {
                    write(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nready")
                }
            default:
                // /silent: hold the connection open without answering until the client gives up.
                while recv(fd, &chunk, chunk.count, 0) > 0 {}
                return
            }
        }
    }

    private func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}

struct FleetTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
