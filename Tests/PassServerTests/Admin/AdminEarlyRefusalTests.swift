import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// An admin request without a valid token is refused from its headers: its body is never read,
/// so unauthenticated clients cannot make the server hold their uploads in memory.
/// The server's resident memory is the evidence; a control shows that it does grow when the same
/// uploads come from an admin, whose bodies the server reads and holds until their last byte.
@Suite("Admin API: refused before the body is read", .offCooperativePool, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct AdminEarlyRefusalTests {
    static let bodySize = 1 << 20
    static let clients = 60

    /// Resident memory of a process, from /proc/PID/status.
    static func residentKiB(_ pid: Int32, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        try HeldUploads.residentKiB(pid, sourceLocation: sourceLocation)
    }

    /// Opens `clients` connections, sends each the head of a 1 MiB upload with `Expect:
    /// 100-continue` and this bearer token, and reads the first answers; then sends every body
    /// but its last byte, all at once, and keeps the connections open. Returns the first answers'
    /// statuses, how many bodies were fully written, and the connections.
    static func uploadAllButTheLastByte(port: Int, token: String) throws -> (statuses: [Int], written: Int, connections: [TestClient]) {
        let head = "POST /admin/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(Self.bodySize)\r\nExpect: 100-continue\r\n\r\n"
        let held = try HeldUploads.allButTheLastByte(port: port, heads: Array(repeating: head, count: Self.clients), bodySize: Self.bodySize)
        return (held.answers.map { $0?.status ?? 0 }, held.written, held.connections)
    }

    @Test("60 unauthenticated 1 MiB bodies: 401 before 100 Continue, and the server's memory stays put")
    func unauthenticatedBodiesAreNeverBuffered() async throws {
        let fixture = try ProcessFixture(.sqlite)
        // For the control at the end: an admin whose bodies the server does read.
        let token = AdminAuthentication.newToken()
        _ = try fixture.store.withSession(.write) { try $0.admin.createAdminToken(name: "control", tokenHash: TokenVault.hash(token), now: Date()) }
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

        let refused = try Self.uploadAllButTheLastByte(port: port, token: "psa_forged")
        #expect(refused.statuses.allSatisfy { $0 == 401 }, "answered from the headers, not 100 Continue: \(Set(refused.statuses))")
        await AdminSupport.pause(0.5)
        let after = try Self.residentKiB(pid)
        let growth = Double(after - before) / 1024
        print("60 unauthenticated 1 MiB admin bodies: server RSS \(before) KiB -> \(after) KiB (\(String(format: "%+.1f", growth)) MiB); bodies fully written: \(refused.written)")
        #expect(growth < 4, "RSS grew by \(growth) MiB")
        #expect(try TestClient(port: port).request("GET", "/healthz").status == 200)
        withExtendedLifetime(refused.connections) {}

        // Control: the same uploads from an admin are read and held until their last byte, and
        // the same measurement shows them (60 MiB; at least half is required).
        let heldBefore = try Self.residentKiB(pid)
        let held = try Self.uploadAllButTheLastByte(port: port, token: token)
        #expect(held.statuses.allSatisfy { $0 == 100 }, "the admin is asked for the bodies: \(Set(held.statuses))")
        var heldGrowth = 0.0
        try await eventually("the held bodies show in the server's memory (\(String(format: "%+.1f", heldGrowth)) MiB)", timeout: 30) {
            heldGrowth = Double(try Self.residentKiB(pid) - heldBefore) / 1024
            return heldGrowth > Double(Self.clients * Self.bodySize / 2) / Double(1 << 20)
        }
        print("control, 60 admin 1 MiB bodies held: server RSS \(String(format: "%+.1f", heldGrowth)) MiB; bodies fully written: \(held.written)")
        withExtendedLifetime(held.connections) {}
    }
}
