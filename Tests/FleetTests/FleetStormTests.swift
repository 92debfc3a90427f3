import Fleet
import Foundation
import PassServerFixtures
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
        let passesBefore = try app.store.withSession(.read) { try $0.passes.passes(eventID: setup.eventID, limit: 201) }
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
        #expect(try app.store.withSession(.read) { try $0.events.event(id: setup.eventID) }?.venue == report.venue)
        let passesAfter = try app.store.withSession(.read) { try $0.passes.passes(eventID: setup.eventID, limit: 201) }
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

    @Test("a designed event: the design goes in before the tickets, and the checked passes hold its images; a file they lack fails the check", arguments: Backend.allCases)
    func designedEvent(backend: Backend) async throws {
        let fixture = try FleetFixture()
        // Every pass is signature-checked; the designed passes must hold the strip's files, the
        // second fleet also a file no pass has.
        let images = ["strip.png", "strip@2x.png", "strip@3x.png"]
        // Images are named by their content: an upload to another server gives the id here.
        let png = try DesignImages.png(1125, 294)
        let probe = try TestApp.start(backend)
        let upload = try DesignImages.upload(probe, png, kind: "strip")
        probe.stop()
        try #require(upload.status == 201, "\(upload.text)")
        let answer = try JSONSerialization.jsonObject(with: Data(upload.body)) as? [String: Any]
        let strip = try #require(answer?["id"] as? String, "\(upload.text)")
        let design = Array(##"{"backgroundColor": "#102030", "images": {"strip": "\##(strip)"}}"##.utf8)

        for extra in [[], ["artwork@3x.png"]] {
            let fleet = try fixture.fleet(phones: 20) { configuration in
                configuration.design = design
                configuration.expectedFiles = images + extra
                configuration.signatureSample = 1
                // A phone whose pass fails the check is never updated: the run ends at the deadline.
                if !extra.isEmpty { configuration.deadline = 3 }
            }
            defer { fleet.shutdown() }
            let app = try fixture.app(backend, fleet: fleet)
            defer { app.stop() }
            try #require(try DesignImages.upload(app, png, kind: "strip").status == 201)
            let setup = try await fleet.setUp(serverPort: UInt16(app.port), adminToken: app.adminToken)
            let stored = try #require(try app.store.withSession(.read) { try $0.events.event(id: setup.eventID) })
            #expect(stored.design?.contains(strip) == true, "the event has the design before the edit")
            let report = try await fleet.editVenue()
            if extra.isEmpty {
                #expect(report.updatedPhones == 20, "\(report.summary)")
                #expect(report.signaturesChecked == 20 && report.signatureFailures == 0, "\(report.summary)")
            } else {
                #expect(report.updatedPhones == 0, "\(report.summary)")
                #expect(report.signaturesChecked >= 20 && report.signatureFailures == report.signaturesChecked, "\(report.summary)")
            }
        }
    }
}
