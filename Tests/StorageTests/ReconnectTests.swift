import Foundation
import Logging
import PassIdentifiers
import PassServerTesting
import Storage
import Testing

/// Runs against a private cluster so restarting it does not disturb other tests.
@Suite("PostgreSQL reconnect", .offCooperativePool, .timeLimit(.minutes(3)))
struct ReconnectTests {
    @Test func callsRecoverAfterServerRestartWithoutNewStore() throws {
        let cluster = try TestPostgresCluster()
        defer { cluster.stop() }
        let sink = MemorySink()
        let store = PostgresStore(url: cluster.url, options: StoreOptions(poolSize: 3, logger: Logger(label: "storage", sink: sink)))
        defer { store.close() }
        try store.migrate()
        let fixturePass = NewPass(
            passTypeIdentifier: "pass.t", serialNumber: "before", authenticationTokenHash: [1], downloadTokenHash: [1], attendeeName: "a"
        )
        _ = try store.withSession(.write) { try $0.passes.insertPass(fixturePass, now: Date()) }
        // Fill the pool with several idle connections that the restart will break.
        try onThreads(3) { _ in try store.ping() }

        try cluster.restart()
        #expect(try store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: "pass.t", serialNumber: "before") } != nil)
        try onThreads(3) { _ in try store.ping() }

        try cluster.stopServer()
        #expect(storageCode { try store.ping() } == .unavailable)
        #expect(storageCode { _ = try store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: "pass.t", serialNumber: "before") } } == .unavailable)
        try cluster.startServer()
        var recovered = false
        for _ in 0..<5 where !recovered {
            recovered = (try? store.ping()) != nil
        }
        #expect(recovered)
        var pass = fixturePass
        pass.serialNumber = "after"
        pass.downloadTokenHash = [2]
        _ = try store.withSession(.write) { try $0.passes.insertPass(pass, now: Date()) }
        #expect(try store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: "pass.t", serialNumber: "after") } != nil)
        #expect(sink.lines.contains { $0.contains("database connection lost") })
        #expect(!sink.lines.contains { $0.contains(cluster.url) })
    }

    @Test func missingServerIsUnavailableNotACrash() throws {
        let store = PostgresStore(url: "postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
        #expect(storageCode { try store.ping() } == .unavailable)
    }
}
