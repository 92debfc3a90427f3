import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

@Suite("Admin tokens and device logs", .offCooperativePool)
struct AdminTests {
    @Test(arguments: Backend.allCases)
    func adminTokenLifecycle(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        let hash: [UInt8] = [0, 1, 2, 255, 254]
        let token = try fixture.store.withSession(.write) { try $0.admin.createAdminToken(name: "ci", tokenHash: hash, now: now) }
        #expect(try fixture.store.withSession(.read) { try $0.admin.adminToken(tokenHash: hash) } == token)
        #expect(storageCode { _ = try fixture.store.withSession(.write) { try $0.admin.createAdminToken(name: "other", tokenHash: hash, now: now) } } == .conflict)
        let second = try fixture.store.withSession(.write) { try $0.admin.createAdminToken(name: "ops", tokenHash: [9], now: now) }
        #expect(try fixture.store.withSession(.read) { try $0.admin.adminTokens() }.map(\.name) == ["ci", "ops"])
        #expect(try fixture.store.withSession(.write) { try $0.admin.revokeAdminToken(idOrName: "ci", now: now) } == 1)
        #expect(try fixture.store.withSession(.read) { try $0.admin.adminToken(tokenHash: hash) } == nil)
        #expect(try fixture.store.withSession(.write) { try $0.admin.revokeAdminToken(idOrName: String(second.id), now: now) } == 1)
        #expect(try fixture.store.withSession(.write) { try $0.admin.revokeAdminToken(idOrName: "ci", now: now) } == 0)
        #expect(try fixture.store.withSession(.read) { try $0.admin.adminTokens() }.allSatisfy { $0.revokedAt != nil })
    }

    @Test(arguments: Backend.allCases)
    func deviceLogsKeepTheNewest(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        _ = try fixture.store.withSession(.write) { session in try session.admin.appendDeviceLogs((0..<5).map { "line \($0)" }, peer: "127.0.0.1", keepNewest: 3, now: now) }
        _ = try fixture.store.withSession(.write) { try $0.admin.appendDeviceLogs(["line 5"], peer: nil, keepNewest: 3, now: now) }
        _ = try fixture.store.withSession(.write) { try $0.admin.appendDeviceLogs([], peer: nil, keepNewest: 3, now: now) }
        let logs = try fixture.store.execute("SELECT message, peer FROM device_logs ORDER BY id DESC")
        #expect(try logs.map { try $0.string("message") } == ["line 5", "line 4", "line 3"])
        #expect(try logs.last?.optionalString("peer") == "127.0.0.1")
    }
}
