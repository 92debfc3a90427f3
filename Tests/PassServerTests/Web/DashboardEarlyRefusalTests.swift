import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The dashboard's forms are refused from their headers: without a session (or with a viewer's
/// where an admin is needed, or for an event that does not exist) no body byte is read, so
/// clients that are not signed in cannot make the server hold their uploads in memory. The
/// server's resident memory is the evidence, as for the admin API (`AdminEarlyRefusalTests`); a
/// control shows that it does grow when a signed-in admin's uploads are held.
@Suite("Dashboard: forms refused before the body is read", .offCooperativePool, .timeLimit(.minutes(8)), .tags(.endToEnd))
struct DashboardEarlyRefusalTests {
    static let uploadSize = 48 << 20
    static let clients = 32
    /// The refused clients come from four loopback addresses, eight each: with `TRUSTED_PROXIES=none`
    /// the per-client connection cap (32) applies to them and none of them reaches it, so every
    /// connection is the server's to answer.
    static let sources = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]

    /// A session stored directly (as signing in stores it) for a token of `role`; returns the cookie.
    static func session(_ fixture: ProcessFixture, role: AdminRole, expired: Bool = false) throws -> String {
        let token = try fixture.store.withSession(.write) {
            try $0.admin.createAdminToken(name: "\(role.rawValue)-\(UUID().uuidString.prefix(8))", role: role, tokenHash: TokenVault.hash(AdminAuthentication.newToken()), now: Date())
        }
        let id = Crypto.randomToken(bytes: 32)
        let now = Date()
        try fixture.store.withSession(.write) {
            try $0.admin.createAdminSession(idHash: TokenVault.hash(id), tokenID: token.id, now: now, expiresAt: now.addingTimeInterval(expired ? -60 : 3_600))
        }
        return "\(DashboardSessions.cookieName(secure: true))=\(id)"
    }

    static func importHead(event: String, cookie: String?, size: Int) -> String {
        "POST /admin/events/\(event)/import HTTP/1.1\r\nHost: x\r\n" + (cookie.map { "Cookie: \($0)\r\n" } ?? "")
            + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: \(size)\r\nExpect: 100-continue\r\n\r\n"
    }

    @Test("32 held 48 MiB imports without a session: each a 403 page before its body, and the server's memory stays put")
    func unauthenticatedImportsAreNeverBuffered() async throws {
        let fixture = try ProcessFixture(.sqlite)
        let (event, _) = try fixture.event(tickets: 0)
        let admin = try Self.session(fixture, role: .admin)
        // Not signed in: no cookie, a made-up session id, an expired session.
        let refusedCookies: [String?] = [nil, "\(DashboardSessions.cookieName(secure: true))=\(Crypto.randomToken(bytes: 32))", try Self.session(fixture, role: .admin, expired: true)]
        fixture.store.close()
        let server = try fixture.launch(extra: ["TRUSTED_PROXIES": "none"])
        defer { server.forceKill() }
        let port = try await server.port(timeout: 180)
        let pid = server.process.processIdentifier

        // Warm up: the code paths of a refusal have run once before the baseline.
        for cookie in refusedCookies {
            let client = try TestClient(port: port)
            client.send(Self.importHead(event: event, cookie: cookie, size: 1_000))
            #expect(try client.readResponse()?.status == 403)
        }
        let before = try HeldUploads.residentKiB(pid)

        let heads = (0..<Self.clients).map { Self.importHead(event: event, cookie: refusedCookies[$0 % refusedCookies.count], size: Self.uploadSize) }
        let refused = try HeldUploads.allButTheLastByte(port: port, heads: heads, bodySize: Self.uploadSize, sources: Self.sources)
        let statuses = refused.answers.map { $0?.status ?? 0 }
        #expect(statuses.allSatisfy { $0 == 403 }, "answered from the headers, not 100 Continue: \(statuses)")
        #expect(refused.answers.allSatisfy { $0?.header("Content-Type")?.hasPrefix("text/html") == true && $0?.text.contains("not signed in") == true },
                "the dashboard's signed-out page")
        #expect(refused.written == 0, "the server closed every connection after its answer: no body went through")
        await AdminSupport.pause(0.5)
        let after = try HeldUploads.residentKiB(pid)
        let growth = Double(after - before) / 1024
        print("32 unauthenticated 48 MiB dashboard imports: server RSS \(before) KiB -> \(after) KiB (\(String(format: "%+.1f", growth)) MiB); bodies fully written: \(refused.written)")
        #expect(growth < 20, "RSS grew by \(growth) MiB")
        #expect(try TestClient(port: port).request("GET", "/healthz").status == 200)
        withExtendedLifetime(refused.connections) {}

        // Control: a signed-in admin's uploads to the same route are asked for, read and held
        // until their last byte, and the same measurement shows them (8 × 8 MiB; at least half).
        let heldSize = 8 << 20
        let heldBefore = try HeldUploads.residentKiB(pid)
        let held = try HeldUploads.allButTheLastByte(
            port: port, heads: Array(repeating: Self.importHead(event: event, cookie: admin, size: heldSize), count: 8), bodySize: heldSize,
            sources: Self.sources
        )
        #expect(held.answers.allSatisfy { $0?.status == 100 }, "the admin is asked for the bodies: \(held.answers.map { $0?.status ?? 0 })")
        var heldGrowth = 0.0
        try await eventually("the held bodies show in the server's memory (\(String(format: "%+.1f", heldGrowth)) MiB)", timeout: 30) {
            heldGrowth = Double(try HeldUploads.residentKiB(pid) - heldBefore) / 1024
            return heldGrowth > Double(8 * heldSize / 2) / Double(1 << 20)
        }
        print("control, 8 admin 8 MiB dashboard imports held: server RSS \(String(format: "%+.1f", heldGrowth)) MiB; bodies fully written: \(held.written)")
        withExtendedLifetime(held.connections) {}
    }
}
