import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// MAX_DEVICES_PER_PASS over real HTTP: a new phone always registers, the least recently updated
/// registration gives way, and a ticket change reaches at most that many devices.
@Suite("Device API: registrations per pass", .offCooperativePool, .timeLimit(.minutes(3)))
struct DeviceRegistrationLimitTests {
    /// Registers and waits a few milliseconds, so each registration has its own `updated_at`.
    private func register(_ phone: Phone, _ serial: String) async throws -> Int {
        let status = try await offPool { try phone.register(serial).status }
        try await Task.sleep(for: .milliseconds(5))
        return status
    }

    /// The serials the phone lists (204: none).
    private func listed(_ phone: Phone) async throws -> (status: Int, serials: [String]) {
        try await offPool {
            let answer = try phone.changedSerials()
            return (answer.status, answer.serials)
        }
    }

    @Test("the 11th device replaces the one updated least recently (default limit 10)", arguments: Backend.allCases)
    func eleventhDevice(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        #expect(app.application.configuration.maxDevicesPerPass == 10)
        let serial = try app.issueTickets(1)[0]
        let phones = (0..<12).map { _ in Phone(app: app) }
        for phone in phones.prefix(10) { #expect(try await register(phone, serial) == 201) }
        #expect(try await register(phones[0], serial) == 200, "phone 0 re-registers: now the most recent")
        #expect(try app.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: app.passType, serialNumber: "\(serial)") } == 10)

        #expect(try await register(phones[10], serial) == 201, "a new phone always registers")
        #expect(try app.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: app.passType, serialNumber: "\(serial)") } == 10)
        #expect(try await listed(phones[1]).status == 204, "phone 1, the least recently updated, was replaced")
        #expect(try await listed(phones[0]).serials == [serial])
        #expect(try await listed(phones[10]).serials == [serial])
        let tokens = Set(try app.store.withSession(.read) { try $0.registrations.pushTokens(passTypeIdentifier: app.passType, serialNumber: "\(serial)") }.map(\.rawValue))
        #expect(tokens == Set(phones.prefix(11).map(\.pushToken)).subtracting([phones[1].pushToken]), "a change pushes the ten devices kept")

        #expect(try await register(phones[11], serial) == 201)
        #expect(try await listed(phones[2]).status == 204)
        #expect(try await register(phones[1], serial) == 201, "a replaced phone can register again, as a new device")
        #expect(try await listed(phones[3]).status == 204)
        #expect(try app.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: app.passType, serialNumber: "\(serial)") } == 10)
    }

    @Test("MAX_DEVICES_PER_PASS sets the limit; other passes are untouched", arguments: Backend.allCases)
    func configuredLimit(backend: Backend) async throws {
        #expect(try Configuration.load(environment: ["MAX_DEVICES_PER_PASS": "3"]).maxDevicesPerPass == 3)
        #expect(throws: ConfigurationError.self) { try Configuration.load(environment: ["MAX_DEVICES_PER_PASS": "0"]) }
        let app = try await TestApp.startOffPool(backend) { $0.maxDevicesPerPass = 2 }
        defer { app.stop() }
        let serials = try app.issueTickets(2)
        let phones = (0..<3).map { _ in Phone(app: app) }
        for phone in phones { #expect(try await register(phone, serials[0]) == 201) }
        #expect(try await register(phones[0], serials[1]) == 201)
        #expect(try app.store.withSession(.read) { try $0.registrations.registrationCount(passTypeIdentifier: app.passType, serialNumber: "\(serials[0])") } == 2)
        #expect(try await listed(phones[0]).serials == [serials[1]], "phone 0 lost the first pass only")
        #expect(try await listed(phones[1]).serials == [serials[0]])
        #expect(try await listed(phones[2]).serials == [serials[0]])
    }
}
