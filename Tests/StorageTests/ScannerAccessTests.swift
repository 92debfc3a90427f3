import Foundation
import PassServerTesting
import Storage
import Testing

/// Scanner access for door staff and its sessions (migration 17), on both backends: a session is
/// valid only while it and its access are, revoking deletes the access's sessions, an access
/// keeps its newest sessions only.
@Suite("Scanner access and its sessions", .offCooperativePool, .timeLimit(.minutes(3)))
struct ScannerAccessTests {
    @Test(arguments: Backend.allCases)
    func lifecycle(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let other = try fixture.makeEvent()
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let store = fixture.store
        let access = try store.withSession(.write) { session in
            try session.scanners.createScannerAccess(
                eventID: event.id, name: "North gate – Sam", codeHash: [1, 2, 3], createdBy: "ops", now: now, expiresAt: now.addingTimeInterval(3_600)
            )
        }
        #expect(access.name == "North gate – Sam" && access.createdBy == "ops" && access.eventID == event.id && access.revokedAt == nil)
        #expect(access.expiresAt == now.addingTimeInterval(3_600))
        #expect(try store.withSession(.read) { try $0.scanners.scannerAccess(codeHash: [1, 2, 3]) } == access)
        #expect(try store.withSession(.read) { try $0.scanners.scannerAccess(codeHash: [9]) } == nil)
        // The code hash is unique.
        #expect(storageCode {
            _ = try store.withSession(.write) { session in
                try session.scanners.createScannerAccess(eventID: other.id, name: "x", codeHash: [1, 2, 3], createdBy: "ops", now: now, expiresAt: now)
            }
        } == .conflict)
        #expect(try store.withSession(.read) { try $0.scanners.usableScannerAccessCount(eventID: event.id, now: now) } == 1)
        #expect(try store.withSession(.read) { try $0.scanners.usableScannerAccessCount(eventID: event.id, now: now.addingTimeInterval(3_600)) } == 0)

        // Sessions: found while valid, not after the session's or the access's expiry.
        try store.withSession(.write) { session in
            try session.scanners.createScannerSession(
                idHash: [7], accessID: access.id, device: "Chrome on Android", now: now, expiresAt: now.addingTimeInterval(7_200), keepingNewest: 2
            )
        }
        let found = try #require(try store.withSession(.read) { try $0.scanners.scannerSession(idHash: [7], now: now.addingTimeInterval(60)) })
        #expect(found.access == access && found.device == "Chrome on Android" && found.lastSeenAt == now)
        #expect(try store.withSession(.read) { try $0.scanners.scannerSession(idHash: [7], now: now.addingTimeInterval(3_600)) } == nil, "the access expired")
        #expect(try store.withSession(.read) { try $0.scanners.scannerSessions(eventID: event.id, now: now) }.map(\.idHash) == [[7]])
        #expect(try store.withSession(.read) { try $0.scanners.scannerSessions(eventID: other.id, now: now) }.isEmpty)

        // Last seen: written when older than the interval only.
        try store.withSession(.write) { try $0.scanners.touchScannerSession(idHash: [7], now: now.addingTimeInterval(30), interval: 60) }
        #expect(try store.withSession(.read) { try $0.scanners.scannerSession(idHash: [7], now: now) }?.lastSeenAt == now)
        try store.withSession(.write) { try $0.scanners.touchScannerSession(idHash: [7], now: now.addingTimeInterval(90), interval: 60) }
        #expect(try store.withSession(.read) { try $0.scanners.scannerSession(idHash: [7], now: now) }?.lastSeenAt == now.addingTimeInterval(90))

        // An access keeps its newest sessions.
        for (index, hash) in ([[8], [9]] as [[UInt8]]).enumerated() {
            try store.withSession(.write) { session in
                try session.scanners.createScannerSession(
                    idHash: hash, accessID: access.id, device: "Safari on iPhone", now: now.addingTimeInterval(Double(index + 1)),
                    expiresAt: now.addingTimeInterval(7_200), keepingNewest: 2
                )
            }
        }
        #expect(try store.withSession(.read) { try $0.scanners.scannerSessions(eventID: event.id, now: now) }.map(\.idHash) == [[9], [8]])

        // The retention sweep deletes expired sessions, and only those.
        try store.withSession(.write) { session in
            try session.scanners.createScannerSession(
                idHash: [10], accessID: access.id, device: "Firefox", now: now.addingTimeInterval(3), expiresAt: now.addingTimeInterval(10), keepingNewest: 5
            )
        }
        #expect(try store.withSession(.write) { try $0.scanners.deleteExpiredScannerSessions(before: now.addingTimeInterval(20), limit: 10) } == 1)
        #expect(try store.withSession(.read) { try $0.scanners.scannerSessions(eventID: event.id, now: now) }.map(\.idHash) == [[9], [8]])

        // Signing out deletes one; revoking the access ends the rest and is not repeated.
        #expect(try store.withSession(.write) { try $0.scanners.deleteScannerSession(idHash: [8]) })
        #expect(try store.withSession(.write) { try $0.scanners.deleteScannerSession(idHash: [8]) } == false)
        #expect(try store.withSession(.write) { try $0.scanners.revokeScannerAccess(id: access.id, eventID: other.id, now: now) } == false, "another event's")
        #expect(try store.withSession(.read) { try $0.scanners.scannerSession(idHash: [9], now: now) } != nil)
        #expect(try store.withSession(.write) { try $0.scanners.revokeScannerAccess(id: access.id, eventID: event.id, now: now) })
        #expect(try store.withSession(.write) { try $0.scanners.revokeScannerAccess(id: access.id, eventID: event.id, now: now) } == false)
        #expect(try store.withSession(.read) { try $0.scanners.scannerSession(idHash: [9], now: now) } == nil)
        #expect(try store.execute("SELECT id_hash FROM scanner_sessions").isEmpty)
        let listed = try store.withSession(.read) { try $0.scanners.scannerAccesses(eventID: event.id) }
        #expect(listed.map(\.id) == [access.id] && listed.first?.revokedAt == now)
        #expect(listed.first?.isUsable(at: now.addingTimeInterval(-60)) == false)
    }
}
