import PassIdentifiers
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// `pass-server serve` as operators run it: SIGTERM drains and exits 0, and the port closes.
@Suite("Graceful shutdown of the real process", .offCooperativePool, .timeLimit(.minutes(4)), .tags(.endToEnd))
struct GracefulShutdownTests {
    @Test("SIGTERM: a request sent just before completes with 200, the process exits 0, connects are refused", arguments: Backend.allCases)
    func sigterm(backend: Backend) async throws {
        let fixture = try ProcessFixture(backend)
        let (_, passes) = try fixture.event(tickets: 1)
        fixture.store.close()
        let pass = try #require(passes.first)
        let serial = pass.serialNumber
        let passType = pass.passTypeIdentifier
        let token = try fixture.vault.downloadToken(passType: passType, serial: serial)

        let server = try fixture.launch(extra: ["SHUTDOWN_DRAIN_TIMEOUT": "10s"])
        defer { server.forceKill() }
        let port = try await server.port()
        #expect(try TestClient(port: port).request("GET", "/healthz").status == 200)

        // A download of a pass never signed before (the slowest request there is), then SIGTERM
        // while it is being served or just after: either way it must complete.
        let client = try TestClient(port: port, timeout: 30)
        #expect(client.send("GET /download/\(token) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        await AdminSupport.pause(0.15)
        let signalled = Date()
        server.signal(SIGTERM)
        let response = try #require(try client.readResponse())
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/vnd.apple.pkpass")
        #expect(response.body.starts(with: [0x50, 0x4B, 0x03, 0x04]))

        let status = await server.waitForExit(timeout: 20)
        #expect(status == 0, "\(server.standardError.suffix(2_000))")
        #expect(server.process.termination == .exited(0))
        #expect(Date().timeIntervalSince(signalled) < 20)
        #expect(server.standardError.contains("signal received, draining"))
        #expect(server.standardError.contains("stopped"))
        #expect(throws: (any Error).self) { _ = try TestClient(port: port, timeout: 2) }
    }

    @Test("the access log loses no line: requests answered just before SIGTERM are all in standard error", arguments: Backend.allCases)
    func accessLogAtSigterm(backend: Backend) async throws {
        let fixture = try ProcessFixture(backend)
        fixture.store.close()
        let server = try fixture.launch(extra: ["SHUTDOWN_DRAIN_TIMEOUT": "10s"])
        defer { server.forceKill() }
        let port = try await server.port()
        let client = try TestClient(port: port)
        let count = 300
        // Paths of their own (each a 404), so each request's line can be told apart.
        for index in 0..<count {
            #expect(try client.request("GET", "/no-such-page-\(index)").status == 404)
        }
        // The lines wait in the writing threads' buffers for a moment; SIGTERM comes first.
        server.signal(SIGTERM)
        let status = await server.waitForExit(timeout: 20)
        #expect(status == 0, "\(server.standardError.suffix(2_000))")
        let lines = server.standardError.split(separator: "\n").filter { $0.contains(": request ") }
        let answered = Set(lines.compactMap { line in line.firstMatch(of: /path=\/no-such-page-(\d+)/).flatMap { Int($0.1) } })
        #expect(answered == Set(0..<count), "missing: \(Set(0..<count).subtracting(answered).sorted().prefix(20))")
        #expect(server.standardError.contains("stopped"), "the lines logged at shutdown are written too")
    }
}
