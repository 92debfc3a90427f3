import Foundation
import Logging
import PassIdentifiers
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The reach ledger: phones' marks wait and are written in batches, after a delay, when a batch
/// is full, when a reader settles, and at shutdown; what the database refuses or the ledger cannot
/// keep is logged, never thrown at a phone.
@Suite("Reach ledger", .offCooperativePool, .timeLimit(.minutes(2)))
struct ReachLedgerTests {
    /// An application's store with one ticket on `phones` registered devices, and a ledger of its
    /// own on that store (not started).
    struct Fixture {
        let app: TestApp
        let pass: StoredPass
        let devices: [DeviceLibraryIdentifier]
        let logs = MemorySink()
        let ledger: ReachLedger

        init(_ backend: Backend, phones: Int = 3, settings: ReachLedger.Settings, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let app = try TestApp.start(backend)
            let passType = app.passType
            let event = try app.createEvent()
            let serial = SerialNumber(stringLiteral: try app.issueTicket(event: event))
            let devices = (0..<phones).map { DeviceLibraryIdentifier(stringLiteral: "ledger-phone-\($0)") }
            for device in devices {
                _ = try app.store.withSession(.write) {
                    try $0.registrations.upsertRegistration(
                        deviceLibraryIdentifier: device, pushToken: .fixture(device.rawValue), passTypeIdentifier: passType, serialNumber: serial, now: Date()
                    )
                }
            }
            let pass = try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: passType, serialNumber: serial) }
            self.app = app
            self.devices = devices
            self.pass = try #require(pass, sourceLocation: sourceLocation)
            ledger = ReachLedger(store: app.store, logger: Logger(label: "reach", sink: logs), settings: settings)
        }

        /// The pass as stored now.
        func storedPass() throws -> StoredPass? {
            let passType = app.passType
            let serial = pass.serialNumber
            return try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: passType, serialNumber: serial) }
        }

        /// The pass's registrations as stored now.
        func registrations() throws -> [RegisteredDevice] {
            let passType = app.passType
            let serial = pass.serialNumber
            return try app.store.withSession(.read) { try $0.reach.registeredDevices(passTypeIdentifier: passType, serialNumber: serial) }
        }

        /// Every phone listed the pass and the pass was served.
        func markAll() {
            for device in devices {
                ledger.told(.init(deviceLibraryIdentifier: device, passTypeIdentifier: app.passType, listedAfter: nil, tag: pass.revision, at: Date()))
            }
            ledger.served(.init(passTypeIdentifier: app.passType, serialNumber: pass.serialNumber, revision: pass.revision, at: Date()))
        }

        /// How many registrations of the pass are up to date (told and served its revision).
        func upToDate() throws -> Int {
            try registrations().filter(\.upToDate).count
        }
    }

    @Test("marks wait: nothing is written per mark; settle writes them all", arguments: Backend.allCases)
    func settleWritesWhatWaits(_ backend: Backend) throws {
        let fixture = try Fixture(backend, settings: .init(delay: 600))
        defer { fixture.app.stop() }
        fixture.markAll()
        #expect(fixture.ledger.waitingCount == 4)
        #expect(try fixture.upToDate() == 0, "written before the batch")
        fixture.ledger.settle()
        #expect(fixture.ledger.waitingCount == 0)
        #expect(try fixture.upToDate() == 3)
        #expect(try fixture.storedPass()?.servedRevision == fixture.pass.revision)
    }

    @Test("settle writes more than a batch holds, in batches", arguments: Backend.allCases)
    func settleInBatches(_ backend: Backend) throws {
        // Not started: only settle writes, two marks a transaction.
        let fixture = try Fixture(backend, settings: .init(delay: 600, batchSize: 2))
        defer { fixture.app.stop() }
        fixture.markAll()
        #expect(fixture.ledger.waitingCount == 4)
        fixture.ledger.settle()
        #expect(fixture.ledger.waitingCount == 0)
        #expect(try fixture.upToDate() == 3)
    }

    @Test("a mark saying what a waiting one says is not kept twice: a phone fetching in a loop takes one place", arguments: Backend.allCases)
    func repeatsTakeOnePlace(_ backend: Backend) throws {
        let fixture = try Fixture(backend, settings: .init(delay: 600))
        defer { fixture.app.stop() }
        for _ in 0..<1_000 { fixture.markAll() }
        #expect(fixture.ledger.waitingCount == 4)
        fixture.ledger.settle()
        #expect(try fixture.upToDate() == 3)
        // Once written, the same marks may wait again (the batch they were in is gone).
        fixture.markAll()
        #expect(fixture.ledger.waitingCount == 4)
    }

    @Test("the ledger's thread writes a batch once its oldest mark waited the delay", arguments: Backend.allCases)
    func writtenAfterTheDelay(_ backend: Backend) async throws {
        let fixture = try Fixture(backend, settings: .init(delay: 0.3))
        defer { fixture.app.stop() }
        fixture.ledger.start()
        defer { fixture.ledger.shutdown() }
        let marked = Date()
        fixture.markAll()
        try await eventually("written by the thread: \(fixture.ledger.waitingCount) waiting", timeout: 20) { try fixture.upToDate() == 3 }
        #expect(Date().timeIntervalSince(marked) >= 0.3, "written before the delay")
    }

    @Test("a full batch is written at once, long before the delay", arguments: Backend.allCases)
    func fullBatchWrittenAtOnce(_ backend: Backend) async throws {
        let fixture = try Fixture(backend, settings: .init(delay: 600, batchSize: 4))
        defer { fixture.app.stop() }
        fixture.ledger.start()
        defer { fixture.ledger.shutdown() }
        fixture.markAll()
        try await eventually("a full batch written: \(fixture.ledger.waitingCount) waiting", timeout: 20) { try fixture.upToDate() == 3 }
    }

    @Test("shutdown writes what waits", arguments: Backend.allCases)
    func shutdownWrites(_ backend: Backend) async throws {
        let fixture = try Fixture(backend, settings: .init(delay: 600))
        defer { fixture.app.stop() }
        fixture.ledger.start()
        fixture.markAll()
        // The running thread leaves them waiting (it writes a full batch at once: see above), so
        // what is written below is shutdown's doing.
        await AdminSupport.pause(0.5)
        #expect(fixture.ledger.waitingCount == 4)
        #expect(try fixture.upToDate() == 0, "written before shutdown")
        fixture.ledger.shutdown()
        #expect(try fixture.upToDate() == 3)
    }

    @Test("beyond its capacity the ledger drops marks and logs how many; a database that refuses the batch is logged", arguments: Backend.allCases)
    func dropsAndFailuresAreLogged(_ backend: Backend) throws {
        let fixture = try Fixture(backend, settings: .init(delay: 600, capacity: 2))
        defer { fixture.app.stop() }
        fixture.markAll()
        #expect(fixture.ledger.waitingCount == 2)
        fixture.ledger.settle()
        #expect(fixture.logs.lines.contains { $0.contains("reach marks dropped") && $0.contains("dropped=2") }, "\(fixture.logs.lines)")
        // The two kept (two phones told, nothing served): told, not up to date.
        let told = try fixture.registrations().filter { $0.toldRevision != nil }
        #expect(told.count == 2)

        // A ledger on a database without the tables: its batch fails, is logged and dropped;
        // nothing is thrown.
        let empty = try backend.freshDatabaseURL(in: try TestCertificates.temporaryDirectory(prefix: "passserver-reach-empty"))
        let other = try Storage.openStore(url: empty, options: StoreOptions(createIfMissing: true))
        defer { other.close() }
        let logs = MemorySink()
        let broken = ReachLedger(store: other, logger: Logger(label: "reach", sink: logs), settings: .init(delay: 600))
        broken.served(.init(passTypeIdentifier: fixture.app.passType, serialNumber: fixture.pass.serialNumber, revision: fixture.pass.revision, at: Date()))
        broken.settle()
        #expect(broken.waitingCount == 0)
        #expect(logs.lines.contains { $0.contains("reach not recorded") && $0.contains("marks=1") }, "\(logs.lines)")
    }
}
