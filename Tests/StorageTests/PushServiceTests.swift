import Foundation
import PassIdentifiers
import PassServerTesting
import Testing

@testable import Storage

/// Migration 21: each device's push service, and outbox rows claimed by their service only.
@Suite("Push services", .offCooperativePool, .timeLimit(.minutes(2)))
struct PushServiceTests {
    static func relayToken(_ text: String) throws -> RelayPushToken { try #require(RelayPushToken(text)) }

    private func change(_ fixture: StoreFixture, _ serial: SerialNumber, now: Date) throws {
        _ = try fixture.store.withSession(.write) {
            try $0.passes.updatePass(passTypeIdentifier: StoreFixture.passType, serialNumber: serial, change: PassChange(touch: true), now: now)
        }
    }

    private func claim(_ fixture: StoreFixture, _ service: PushService, now: Date) throws -> [OutboxRow] {
        try fixture.store.withSession(.write) { try $0.outbox.claimOutbox(limit: 10, now: now, lease: .seconds(30), service: service) }
    }

    @Test("each service's claim takes its own rows; a device switching service moves its pushes", arguments: Backend.allCases)
    func claimsByService(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        try fixture.makePass(serial: "S1")
        _ = try fixture.register(device: "apple", token: .fixture("apple"), serial: "S1")
        _ = try fixture.store.withSession(.write) {
            try $0.registrations.upsertRegistration(
                deviceLibraryIdentifier: "android", token: .relay(try Self.relayToken("relay-token-0001")), passTypeIdentifier: StoreFixture.passType,
                serialNumber: "S1", now: now
            )
        }
        try change(fixture, "S1", now: now)
        let relayed = try claim(fixture, .relay, now: now)
        let pushed = try claim(fixture, .apns, now: now)
        #expect(relayed.map(\.pushToken.rawValue) == ["relay-token-0001"])
        #expect(pushed.map(\.pushToken) == [.fixture("apple")])
        for row in relayed + pushed { #expect(try fixture.store.settle(row, .completed, now: now)) }

        // The Android device registers again as an Apple one: its next push goes through APNs.
        _ = try fixture.register(device: "android", token: .fixture("switched"), serial: "S1")
        try change(fixture, "S1", now: now.addingTimeInterval(60))
        #expect(try claim(fixture, .relay, now: now.addingTimeInterval(60)).isEmpty)
        #expect(Set(try claim(fixture, .apns, now: now.addingTimeInterval(60)).map(\.pushToken)) == [.fixture("apple"), .fixture("switched")])
    }

    @Test("a token registered under both services is pushed through APNs only", arguments: Backend.allCases)
    func sameTokenBothServices(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let now = Date()
        try fixture.makePass(serial: "S2")
        let token = PushToken.fixture("shared")
        _ = try fixture.register(device: "apple", token: token, serial: "S2")
        _ = try fixture.store.withSession(.write) {
            try $0.registrations.upsertRegistration(
                deviceLibraryIdentifier: "android", token: .relay(try Self.relayToken(token.rawValue)), passTypeIdentifier: StoreFixture.passType,
                serialNumber: "S2", now: now
            )
        }
        try change(fixture, "S2", now: now)
        #expect(try claim(fixture, .relay, now: now).isEmpty)
        #expect(try claim(fixture, .apns, now: now).map(\.pushToken) == [token])
    }
}
