import Foundation
import Logging
import PassIdentifiers
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer
@testable import Storage

/// Reach as a value: what a tally counts, a re-push job's share, and which of the device API's
/// answers leave a mark in the ledger.
@Suite("Reach: values and the marks answers leave", .offCooperativePool, .timeLimit(.minutes(2)))
struct ReachTests {
    static let tally = Tally(
        tickets: 9, cancelled: 1, registeredDevices: 4, devices: 6, devicesUpToDate: 3, pushesPending: 2, pushesFailed: 1, pushesDelivered: 5,
        checkedIn: 7, emailsQueued: 1
    )

    @Test("an event's reach is its tally's registrations and pushes")
    func eventReach() {
        #expect(Reach(Self.tally) == Reach(devices: 6, devicesUpToDate: 3, pushesPending: 2, pushesFailed: 1, pushesDelivered: 5))
        #expect(ReachBody(Reach(Self.tally)) == ReachBody(Reach(devices: 6, devicesUpToDate: 3, pushesPending: 2, pushesFailed: 1, pushesDelivered: 5)))
    }

    @Test("a job's share: its own pushes and registrations up to date; every registration of the event to reach while it runs", arguments: [Backend.sqlite])
    func jobShare(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let eventID = try app.createEvent()
        // A job as stored, made a re-push job "J" of each state.
        var job = try app.store.withSession(.write) { try $0.jobs.createEmailJob(eventID: eventID, resend: false, now: Date()) }
        (job.id, job.kind) = ("J", Job.repushKind)
        let own = Tally(devices: 2, devicesUpToDate: 1, pushesPending: 1, pushesDelivered: 3)
        let event = EventTally(total: Self.tally, byJob: ["J": own])
        for state in [Job.State.pending, .running] {
            job.state = state
            #expect(Reach(job: job, of: event) == Reach(devices: 6, devicesUpToDate: 1, pushesPending: 1, pushesDelivered: 3), "\(state)")
        }
        job.state = .done
        #expect(Reach(job: job, of: event) == Reach(devices: 2, devicesUpToDate: 1, pushesPending: 1, pushesDelivered: 3))
        job.id = "other"
        #expect(Reach(job: job, of: event) == Reach())
        // Read from the store: an event with no registrations reaches nobody.
        #expect(try app.store.withSession(.read) { try Reach.of(job, in: $0) } == Reach())
    }

    @Test("a list answer marks the device told only when a listed registration was not told yet; a served pass once per revision", arguments: [Backend.sqlite])
    func marks(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = SerialNumber(stringLiteral: try app.issueTicket(event: event))
        let passType = app.passType
        let stored = try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: passType, serialNumber: serial) }
        let pass = try #require(stored)
        // Not started: marks wait, nothing is written.
        let ledger = ReachLedger(store: app.store, logger: Logger(label: "reach", sink: MemorySink()))
        let device: DeviceLibraryIdentifier = "reach-phone"
        let now = Date()

        ledger.listed(ChangedSerials(serialNumbers: [serial], lastRevision: pass.revision, needsTelling: false), to: device, passType: passType, listedAfter: nil, at: now)
        ledger.listed(ChangedSerials(serialNumbers: [], lastRevision: nil, needsTelling: true), to: device, passType: passType, listedAfter: nil, at: now)
        #expect(ledger.waitingCount == 0)
        ledger.listed(ChangedSerials(serialNumbers: [serial], lastRevision: pass.revision, needsTelling: true), to: device, passType: passType, listedAfter: 3, at: now)
        #expect(ledger.waitingCount == 1)

        var known = pass
        known.servedRevision = pass.revision
        ledger.served(known, at: now)
        #expect(ledger.waitingCount == 1, "the revision was served before")
        var behind = pass
        behind.servedRevision = pass.revision - 1
        ledger.served(behind, at: now)
        #expect(ledger.waitingCount == 2)
    }
}
