import Foundation
import PassIdentifiers
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

/// The outbox operations the dispatcher relies on, on both stores: a change that lands while its
/// row is claimed is not lost when the claim completes, and a failed row comes back to life.
@Suite("Push outbox: generations and revival", .offCooperativePool, .timeLimit(.minutes(3)))
struct OutboxGenerationTests {
    static let passType: PassTypeIdentifier = "pass.com.example.outbox"

    /// A migrated store with one pass registered by one device; returns the store and its token.
    static func store(_ backend: Backend) throws -> (any Store, PushToken) {
        let directory = try TestCertificates.temporaryDirectory(prefix: "passserver-outbox")
        let store = try Storage.openStore(url: backend.freshDatabaseURL(in: directory))
        try store.migrate()
        _ = try store.withSession(.write) {
            try $0.passes.insertPass(NewPass(
                passTypeIdentifier: passType, serialNumber: "S1", authenticationTokenHash: [1], downloadTokenHash: [2], attendeeName: "Ada"
            ), now: Date())
        }
        let token = PushToken.hex(Phone.randomPushToken())
        _ = try store.withSession(.write) {
            try $0.registrations.upsertRegistration(deviceLibraryIdentifier: "device1", pushToken: token, passTypeIdentifier: passType, serialNumber: "S1", now: Date())
        }
        return (store, token)
    }

    static func change(_ store: any Store, seat: String) throws {
        _ = try store.withSession(.write) { try $0.passes.updatePass(passTypeIdentifier: passType, serialNumber: "S1", change: PassChange(seat: seat), now: Date()) }
    }

    @Test("a push enqueued while its row is claimed survives the completion of the claim", arguments: Backend.allCases)
    func generationSurvivesCompletion(backend: Backend) async throws {
        let (store, token) = try Self.store(backend)
        defer { store.close() }
        try Self.change(store, seat: "A1")
        let claimed = try store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: Date(), lease: .seconds(60)) }
        #expect(claimed.map(\.pushToken) == [token])
        let row = try #require(claimed.first)

        try Self.change(store, seat: "A2")
        #expect(try store.settle(row, .completed, now: Date()) == false, "a newer change keeps the row")
        let again = try store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: Date(), lease: .seconds(60)) }
        #expect(again.map(\.id) == [row.id])
        #expect((again.first?.generation ?? 0) > row.generation)
        let newer = try #require(again.first)
        #expect(try store.settle(newer, .completed, now: Date()) == true)
        #expect(try store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }.summary == [0, 0, 0])
    }

    @Test("a claimed row is not handed out twice until its lease expires", arguments: Backend.allCases)
    func leaseExcludes(backend: Backend) async throws {
        let (store, _) = try Self.store(backend)
        defer { store.close() }
        try Self.change(store, seat: "B1")
        let now = Date()
        #expect(try store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: now, lease: .seconds(5)) }.count == 1)
        #expect(try store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: now.addingTimeInterval(1), lease: .seconds(5)) }.isEmpty)
        #expect(try store.withSession(.read) { try $0.outbox.outboxCounts(now: now.addingTimeInterval(1)) }.inFlight == 1)
        #expect(try store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: now.addingTimeInterval(6), lease: .seconds(5)) }.count == 1, "re-claimed after the lease")
    }

    @Test("a failed row is revived as pending, due now, by a later change", arguments: Backend.allCases)
    func failedRowRevives(backend: Backend) async throws {
        let (store, token) = try Self.store(backend)
        defer { store.close() }
        try Self.change(store, seat: "C1")
        let row = try #require(try store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: Date(), lease: .seconds(60)) }.first)
        try store.settle(row, .failed(status: 503, reason: "gave up"), now: Date())
        #expect(try store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }.summary == [0, 0, 1])
        #expect(try store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: Date().addingTimeInterval(3_600), lease: .seconds(60)) }.isEmpty, "failed rows are not sent")

        try Self.change(store, seat: "C2")
        #expect(try store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }.summary == [1, 0, 0])
        let revived = try store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: Date(), lease: .seconds(60)) }
        #expect(revived.map(\.pushToken) == [token])
        #expect(revived.first?.attempts == 0)
    }

    @Test("a row failing while a newer change arrived stays pending", arguments: Backend.allCases)
    func failWithNewerChangeStaysPending(backend: Backend) async throws {
        let (store, _) = try Self.store(backend)
        defer { store.close() }
        try Self.change(store, seat: "D1")
        let row = try #require(try store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: Date(), lease: .seconds(60)) }.first)
        try Self.change(store, seat: "D2")
        try store.settle(row, .failed(status: 503, reason: "gave up"), now: Date())
        #expect(try store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }.summary == [1, 0, 0])
    }
}
