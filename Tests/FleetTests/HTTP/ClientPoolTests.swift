import APNs
import PassServerTesting
import SystemSupport
import Testing

@testable import Fleet

@Suite("HTTP/1.1 client pool over real sockets: keep-alive, chunked, close, stale connections, failures", .offCooperativePool, .timeLimit(.minutes(2)))
struct ClientPoolTests {
    /// A started loop whose pool talks to `port`. Idle connections are reused however long they
    /// waited, so a slow machine cannot turn reuse into a new connection.
    static func loop(port: UInt16, capacity: Int = 1, timeout: Double = 30) throws -> EventLoop {
        let loop = try EventLoop()
        loop.start()
        loop.execute { loop.pool = ClientPool(port: port, capacity: capacity, requestTimeout: timeout, maxIdle: 3_600) }
        return loop
    }

    static func send(_ loop: EventLoop, _ request: ClientRequest) async -> Result<ClientResponse, FleetError> {
        await withCheckedContinuation { continuation in
            let posted = loop.execute {
                guard let pool = loop.pool else {
                    return continuation.resume(returning: .failure(FleetError(.shutdown, "no pool")))
                }
                pool.send(request, now: monotonicSeconds()) { continuation.resume(returning: $0) }
            }
            if !posted { continuation.resume(returning: .failure(FleetError(.shutdown, "stopped"))) }
        }
    }

    static func body(_ result: Result<ClientResponse, FleetError>) -> String? {
        guard case .success(let response) = result else { return nil }
        return String(decoding: response.body, as: UTF8.self)
    }

    @Test("requests share one keep-alive connection; a chunked answer is reassembled")
    func keepAlive() async throws {
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        let loop = try Self.loop(port: server.port)
        defer { loop.stop() }
        #expect(Self.body(await Self.send(loop, ClientRequest(method: "GET", target: "/length"))) == "hello")
        #expect(Self.body(await Self.send(loop, ClientRequest(method: "GET", target: "/chunked"))) == "Wikipedia")
        #expect(Self.body(await Self.send(loop, ClientRequest(method: "GET", target: "/length"))) == "hello")
        #expect(server.accepted == 1)
    }

    @Test("a connection idle longer than maxIdle is not reused (the server may be closing it)")
    func idleTooLong() async throws {
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        let loop = try EventLoop()
        loop.start()
        defer { loop.stop() }
        loop.execute { loop.pool = ClientPool(port: server.port, capacity: 1, requestTimeout: 30, maxIdle: 0.2) }
        #expect(Self.body(await Self.send(loop, ClientRequest(method: "GET", target: "/length"))) == "hello")
        try await Task.sleep(for: .milliseconds(600))
        #expect(Self.body(await Self.send(loop, ClientRequest(method: "GET", target: "/length"))) == "hello")
        #expect(server.accepted == 2)
    }

    @Test("Connection: close retires the connection; the next request opens another")
    func close() async throws {
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        let loop = try Self.loop(port: server.port)
        defer { loop.stop() }
        #expect(Self.body(await Self.send(loop, ClientRequest(method: "GET", target: "/close"))) == "ok")
        #expect(Self.body(await Self.send(loop, ClientRequest(method: "GET", target: "/length"))) == "hello")
        #expect(server.accepted == 2)
    }

    @Test("a kept-alive connection the server closes unanswered is retried once on a new one (GET only)")
    func staleConnection() async throws {
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        let loop = try Self.loop(port: server.port)
        defer { loop.stop() }
        #expect(Self.body(await Self.send(loop, ClientRequest(method: "GET", target: "/length"))) == "hello")
        #expect(Self.body(await Self.send(loop, ClientRequest(method: "GET", target: "/drop-once"))) == "again")
        #expect(server.accepted == 2)

        // The same drop under a POST is the caller's to handle: sent twice, it might act twice.
        let other = try ScriptedHTTPServer()
        defer { other.stop() }
        let postLoop = try Self.loop(port: other.port)
        defer { postLoop.stop() }
        #expect(Self.body(await Self.send(postLoop, ClientRequest(method: "GET", target: "/length"))) == "hello")
        guard case .failure = await Self.send(postLoop, ClientRequest(method: "POST", target: "/drop-once")) else {
            Issue.record("a POST dropped on a kept-alive connection must fail, not be sent again")
            return
        }
        #expect(other.requests == ["/length", "/drop-once"])
        #expect(other.accepted == 1)
    }

    @Test("no answer in time is a timeout; a refusing port is connectionRefused")
    func failures() async throws {
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        let impatient = try Self.loop(port: server.port, timeout: 0.5)
        defer { impatient.stop() }
        guard case .failure(let timeout) = await Self.send(impatient, ClientRequest(method: "GET", target: "/silent")) else {
            Issue.record("a silent server must time out")
            return
        }
        #expect(timeout.code == .timeout)
        let loop = try Self.loop(port: server.port)
        defer { loop.stop() }
        let refusing = try RefusingPort()
        guard case .failure(let refused) = await Self.send(loop, ClientRequest(method: "GET", target: "/length", port: refusing.port)) else {
            Issue.record("a refusing port must fail")
            return
        }
        #expect(refused.code == .connectionRefused)
        // The pool still works afterwards.
        #expect(Self.body(await Self.send(loop, ClientRequest(method: "GET", target: "/length"))) == "hello")
    }
}
