import Dispatch
import Foundation
import PassServerTesting
import Storage
import Synchronization
import Testing

@testable import PassServer

/// An admin request without a valid token is refused from its headers: its body is never read,
/// so unauthenticated clients cannot make the server hold their uploads in memory.
@Suite("Admin API: refused before the body is read", .offCooperativePool, .timeLimit(.minutes(6)))
struct AdminEarlyRefusalTests {
    static let bodySize = 1 << 20
    static let clients = 60

    /// Resident memory of a process, from /proc/PID/status.
    static func residentKiB(_ pid: Int32, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }, sourceLocation: sourceLocation)
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]), sourceLocation: sourceLocation)
    }

    @Test("60 unauthenticated 1 MiB bodies: 401 before 100 Continue, and the server's memory stays put")
    func unauthenticatedBodiesAreNeverBuffered() async throws {
        let fixture = try ProcessFixture(.sqlite)
        fixture.store.close()
        let server = try fixture.launch()
        defer { server.forceKill() }
        // Generous: under the whole suite on a shared machine a start can take long.
        let port = try await server.port(timeout: 180)
        let pid = server.process.processIdentifier

        // Warm up: the code paths of a refusal have run once before the baseline.
        for _ in 0..<5 {
            #expect(try TestClient(port: port).request("POST", "/admin/v1/events", body: Array(repeating: 0x20, count: 1_000)).status == 401)
        }
        let before = try Self.residentKiB(pid)

        let head = "POST /admin/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer psa_forged\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(Self.bodySize)\r\nExpect: 100-continue\r\n\r\n"
        let connections = try (0..<Self.clients).map { _ in try TestClient(port: port, timeout: 20) }
        for connection in connections { connection.send(head) }
        let firstAnswers = connections.map { (try? $0.readResponse())?.status ?? 0 }
        #expect(firstAnswers.allSatisfy { $0 == 401 }, "answered from the headers, not 100 Continue: \(Set(firstAnswers))")

        // Send the bodies anyway, all at once, all but the last byte, and keep the connections open.
        let body = [UInt8](repeating: 0x20, count: Self.bodySize - 1)
        let accepted = Atomic<Int>(0)
        // Each connection is used by exactly one of the concurrent iterations.
        nonisolated(unsafe) let shared = connections
        DispatchQueue.concurrentPerform(iterations: shared.count) { index in
            if shared[index].send(body) { accepted.add(1, ordering: .relaxed) }
        }
        await AdminSupport.pause(0.5)
        let after = try Self.residentKiB(pid)
        let growth = Double(after - before) / 1024
        print("60 unauthenticated 1 MiB admin bodies: server RSS \(before) KiB -> \(after) KiB (\(String(format: "%+.1f", growth)) MiB); bodies fully written: \(accepted.load(ordering: .relaxed))")
        #expect(growth < 4, "RSS grew by \(growth) MiB")
        #expect(try TestClient(port: port).request("GET", "/healthz").status == 200)
        _ = consume connections
    }
}
