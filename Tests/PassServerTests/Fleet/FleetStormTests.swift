import Fleet
import Foundation
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The phone fleet against a real application over real HTTP, pushed through the fake APNs over
/// TLS + HTTP/2: an organizer's edit reaches every phone as the new, correctly signed pass.
@Suite("Phone fleet: an event edit reaches every phone", .offCooperativePool, .serialized, .timeLimit(.minutes(5)))
struct FleetStormTests {
    @Test("200 phones on 200 tickets: after the venue edit every phone holds the new revision", arguments: Backend.allCases)
    func everyPhoneUpdated(backend: Backend) async throws {
        let fixture = try FleetFixture()
        let fleet = try fixture.fleet(phones: 200)
        defer { fleet.shutdown() }
        let app = try fixture.app(backend, fleet: fleet)
        defer { app.stop() }

        let setup = try await fleet.setUp(serverPort: UInt16(app.port), adminToken: app.adminToken)
        #expect(setup.tickets == 200)
        #expect(setup.registrations == 200)
        let passesBefore = try app.store.withSession(.read) { try $0.passes(eventID: setup.eventID, limit: 201) }
        let report = try await fleet.editVenue()

        #expect(report.updatedPhones == 200, "\(report.summary)")
        #expect(report.phonesLeftBehind == 0)
        #expect(report.secondsTo100Percent != nil)
        // One push per phone, one list and one fetch each; every pass.json carried the new venue.
        #expect(report.pushesAccepted == 200)
        #expect(report.fetches == 200)
        #expect(report.requestsByStatus == ["200": 400])
        #expect(report.contentChecked == 200)
        #expect(report.contentMismatches == 0)
        #expect(report.signaturesChecked == 20)
        #expect(report.signatureFailures == 0)
        #expect(report.staleFetches == 0 && report.unchangedFetches == 0 && report.serverErrors == 0)
        // The server agrees: the event has the new venue and every pass a newer revision.
        #expect(try app.store.withSession(.read) { try $0.event(id: setup.eventID) }?.venue == report.venue)
        let passesAfter = try app.store.withSession(.read) { try $0.passes(eventID: setup.eventID, limit: 201) }
        let before = Dictionary(uniqueKeysWithValues: passesBefore.map { ($0.serialNumber, $0.revision) })
        #expect(passesAfter.count == 200)
        #expect(passesAfter.allSatisfy { $0.revision > (before[$0.serialNumber] ?? .max) })
    }

    @Test("a phone holding two passes is pushed once, lists both and fetches both", arguments: Backend.allCases)
    func twoPassesPerPhone(backend: Backend) async throws {
        let fixture = try FleetFixture()
        let fleet = try fixture.fleet(phones: 50, passesPerPhone: 2)
        defer { fleet.shutdown() }
        let app = try fixture.app(backend, fleet: fleet)
        defer { app.stop() }

        let setup = try await fleet.setUp(serverPort: UInt16(app.port), adminToken: app.adminToken)
        #expect(setup.tickets == 100)
        #expect(setup.registrations == 100)
        let report = try await fleet.editVenue()

        #expect(report.updatedPhones == 50, "\(report.summary)")
        #expect(report.updatedPasses == 100)
        // One push per token (the job runs in one batch), so each phone's single list named both.
        #expect(report.pushesAccepted == 50)
        #expect(report.requestsByStatus["200"] == 150)
        #expect(report.fetches == 100)
        #expect(report.contentChecked == 100)
        #expect(report.contentMismatches == 0)
    }

    @Test("20 phones whose first two fetches are refused retry with backoff and end up updated", arguments: Backend.allCases)
    func failingFetchesRetried(backend: Backend) async throws {
        let fixture = try FleetFixture()
        let fleet = try fixture.fleet(phones: 100) { configuration in
            configuration.faultyPhones = 20
            configuration.failedFetchesPerFaultyPhone = 2
        }
        defer { fleet.shutdown() }
        let app = try fixture.app(backend, fleet: fleet)
        defer { app.stop() }

        _ = try await fleet.setUp(serverPort: UInt16(app.port), adminToken: app.adminToken)
        let report = try await fleet.editVenue()

        #expect(report.updatedPhones == 100, "\(report.summary)")
        #expect(report.faultyPhones == 20)
        #expect(report.faultyPhonesUpdated == 20)
        // The failures were real connection refusals, each one retried.
        #expect(report.injectedFailures == 40)
        #expect(report.transportErrors == ["connectionRefused": 40])
        #expect(report.fetchFailures == 40)
        #expect(report.fetches == 100)
        #expect(report.contentMismatches == 0)
    }
}
