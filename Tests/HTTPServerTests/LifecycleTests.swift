import Dispatch
import Foundation
@testable import HTTPServer
import Logging
import Synchronization
import PassServerTesting
import Testing

@Suite(.offCooperativePool) struct LifecycleTests {
    @Test func shutdownLetsASlowRequestFinishAndRefusesNewConnections() throws {
        let entered = DispatchSemaphore(value: 0)
        var router = echoRouter()
        router.get("/slow") { _ in
            entered.signal()
            usleep(1_500_000)
            return .text("done")
        }
        let server = HTTPServer(configuration: ServerConfiguration(port: 0, threads: 2), router: router, logger: Logger(label: "t", sink: MemorySink()))
        try server.start()
        let port = server.port
        let slow = Mutex<TestResponse?>(nil)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let response = try? TestClient(port: port, timeout: 30).request("GET", "/slow")
            slow.withLock { $0 = response }
            finished.signal()
        }
        #expect(entered.wait(timeout: .now() + 20) == .success)
        let shutdownDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.shutdown()
            shutdownDone.signal()
        }
        // New connections are refused while the slow request is still running.
        var refused = false
        for _ in 0..<100 where !refused {
            if (try? TestClient(port: port, timeout: 2)) == nil { refused = true } else { usleep(10_000) }
        }
        #expect(refused)
        #expect(finished.wait(timeout: .now() + 30) == .success)
        let response = slow.withLock { $0 }
        #expect(response?.status == 200)
        #expect(response?.text == "done")
        #expect(response?.header("Connection")?.lowercased() == "close")
        #expect(shutdownDone.wait(timeout: .now() + 30) == .success)
        server.waitUntilStopped()
        server.shutdown()  // idempotent
        #expect(server.inFlightRequests == 0)
    }

    @Test func drainIsBoundedByTheTimeout() throws {
        var router = Router()
        let entered = DispatchSemaphore(value: 0)
        router.get("/stuck") { _ in
            entered.signal()
            usleep(3_000_000)
            return .text("late")
        }
        let configuration = ServerConfiguration(port: 0, threads: 2, drainTimeout: .milliseconds(200))
        let sink = MemorySink()
        let server = HTTPServer(configuration: configuration, router: router, logger: Logger(label: "t", sink: sink))
        try server.start()
        let port = server.port
        DispatchQueue.global().async { _ = try? TestClient(port: port, timeout: 30).request("GET", "/stuck") }
        #expect(entered.wait(timeout: .now() + 20) == .success)
        let started = ContinuousClock.now
        server.shutdown()
        // stop waits for the blocked handler's thread, but not for a full drain of more work.
        #expect(ContinuousClock.now - started < .seconds(20))
        // The drain gave up at its timeout with the request still running (the handler takes 3 s).
        #expect(sink.lines.contains { $0.contains("drain timeout: closing in-flight requests") && $0.contains("requests=1") }, "\(sink.lines)")
    }

    @Test func portZeroPicksAFreePortAndAddressInUseIsReported() throws {
        let first = HTTPServer(configuration: ServerConfiguration(port: 0), router: echoRouter(), logger: Logger(label: "t", sink: MemorySink()))
        #expect(first.port == 0)
        try first.start()
        defer { first.shutdown() }
        #expect(first.port > 0)
        let second = HTTPServer(configuration: ServerConfiguration(port: first.port), router: echoRouter(), logger: Logger(label: "t", sink: MemorySink()))
        #expect {
            try second.start()
        } throws: { error in
            (error as? HTTPServerError)?.code == .addressInUse
        }
        second.shutdown()
        second.waitUntilStopped()
        #expect {
            try first.start()
        } throws: { error in
            (error as? HTTPServerError)?.code == .alreadyStarted
        }
    }

    @Test("a socket opened before the server holds the port from then on, and the server serves on it")
    func servesOnASocketOpenedBefore() throws {
        let socket = try ListeningSocket(host: "127.0.0.1", port: 0)
        #expect(socket.port > 0)
        // Held already: another bind of the port fails before any server has started.
        #expect {
            _ = try ListeningSocket(host: "127.0.0.1", port: socket.port)
        } throws: { error in
            (error as? HTTPServerError)?.code == .addressInUse
        }
        // The configuration's port is ignored in favour of the socket's.
        let server = HTTPServer(
            configuration: ServerConfiguration(port: 0), router: echoRouter(), logger: Logger(label: "t", sink: MemorySink()), listening: socket
        )
        try server.start()
        defer { server.shutdown() }
        #expect(server.port == socket.port)
        #expect((try? TestClient(port: socket.port).request("GET", "/healthz").status) == 200)
    }

    @Test func concurrentShutdownsAllReturnOnceStopped() throws {
        let server = HTTPServer(configuration: ServerConfiguration(port: 0), router: echoRouter(), logger: Logger(label: "t", sink: MemorySink()))
        try server.start()
        let port = server.port
        #expect((try? TestClient(port: port).request("GET", "/healthz").status) == 200)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in server.shutdown() }
        server.waitUntilStopped()
        #expect((try? TestClient(port: port)) == nil)
    }

    @Test func badHostIsReported() {
        let server = HTTPServer(configuration: ServerConfiguration(host: "not a host", port: 0), router: Router(), logger: Logger(label: "t", sink: MemorySink()))
        #expect {
            try server.start()
        } throws: { error in
            (error as? HTTPServerError)?.code == .invalidHost
        }
    }

    /// Whether this machine has an IPv6 loopback to bind (a container may have none).
    static let hasIPv6Loopback: Bool = {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        } == 0
    }()

    // Without an IPv6 loopback the test is reported as skipped; IPv4 is covered everywhere else.
    @Test(.enabled(if: hasIPv6Loopback, "no IPv6 loopback on this machine"))
    func servesOnIPv6Loopback() throws {
        let server = HTTPServer(configuration: ServerConfiguration(host: "::1", port: 0), router: echoRouter(), logger: Logger(label: "t", sink: MemorySink()))
        try server.start()
        defer { server.shutdown() }
        #expect(server.port > 0)
        #expect(try Self.statusOverIPv6Loopback(port: server.port, path: "/healthz") == 200)
    }

    /// The status code of GET `path` sent over a fresh connection to [::1]:`port`.
    private static func statusOverIPv6Loopback(port: Int, path: String) throws -> Int? {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClient.Failure(description: "socket failed: errno \(errno)") }
        defer { close(fd) }
        var limit = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = UInt16(port).bigEndian
        address.sin6_addr = in6addr_loopback
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
        guard connected == 0 else { throw TestClient.Failure(description: "connect to [::1]:\(port) failed: errno \(errno)") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { throw TestClient.Failure(description: "send to [::1]:\(port) failed: errno \(errno)") }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received += chunk[..<count]
        }
        // "HTTP/1.1 200 OK"
        let statusLine = String(decoding: received.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
        return statusLine.count >= 2 ? Int(statusLine[1]) : nil
    }
}
