import Foundation
import PassIdentifiers
import PassServerTesting
import Storage
import Synchronization
import Testing

/// Migration 20's operations: a callback's nonce taken once, a ticket's saved state with the
/// event's count following it, nonces pruned by age, and everything gone with the event.
@Suite("Google Wallet saves and nonces", .offCooperativePool, .timeLimit(.minutes(2)))
struct GoogleWalletStorageTests {
    @Test("saves count once per ticket, a nonce twice is a replay, a del un-counts", arguments: Backend.allCases)
    func savesAndNonces(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let other = try fixture.makeEvent()
        let first = try fixture.makePass(serial: "G-1", eventID: event.id)
        let second = try fixture.makePass(serial: "G-2", eventID: event.id)
        let third = try fixture.makePass(serial: "G-3", eventID: event.id)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        try fixture.store.withSession(.write) { (session: StoreSession) throws -> Void in
            #expect(try session.google.googleWalletTicket(passID: first.id) == nil)
            #expect(try session.google.recordGoogleWalletCallback(passID: first.id, eventID: event.id, nonce: "n1", saved: true, now: t0) == .recorded(changed: true))
            #expect(try session.google.recordGoogleWalletCallback(passID: first.id, eventID: event.id, nonce: "n1", saved: true, now: t0) == .replayed)
            #expect(try session.google.recordGoogleWalletCallback(passID: first.id, eventID: event.id, nonce: "n2", saved: true, now: t0 + 5) == .recorded(changed: false))
            #expect(try session.google.recordGoogleWalletCallback(passID: second.id, eventID: event.id, nonce: "n3", saved: true, now: t0) == .recorded(changed: true))
            #expect(try session.google.googleWalletSaved(eventID: event.id) == 2)
            #expect(try session.google.recordGoogleWalletCallback(passID: second.id, eventID: event.id, nonce: "n4", saved: false, now: t0 + 10) == .recorded(changed: true))
            #expect(try session.google.googleWalletSaved(eventID: event.id) == 1)
            #expect(try session.google.googleWalletSaved(eventID: other.id) == 0)
            #expect(try session.google.googleWalletSaved(eventIDs: [event.id, other.id]) == [event.id: 1])
            #expect(try session.google.googleWalletSavedTotal() == 1)
            #expect(try session.statistics().googleWalletSaved == 1)
            #expect(try session.google.googleWalletTicket(passID: first.id) == GoogleWalletTicket(saved: true, firstSavedAt: t0, lastEventAt: t0 + 5))
            #expect(try session.google.googleWalletTicket(passID: second.id) == GoogleWalletTicket(saved: false, firstSavedAt: t0, lastEventAt: t0 + 10))
            // A del first: the ticket is known and not saved, and no count goes below zero.
            #expect(try session.google.recordGoogleWalletCallback(passID: third.id, eventID: event.id, nonce: "n5", saved: false, now: t0) == .recorded(changed: false))
            #expect(try session.google.googleWalletTicket(passID: third.id) == GoogleWalletTicket(saved: false, firstSavedAt: nil, lastEventAt: t0))
            #expect(try session.google.googleWalletSaved(eventID: event.id) == 1)
        }
    }

    @Test("concurrent deliveries: one nonce on many threads is taken once; many saves of one ticket count it once", arguments: Backend.allCases)
    func concurrent(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let pass = try fixture.makePass(serial: "G-C", eventID: event.id)
        let store = fixture.store
        let recorded = Atomic<Int>(0)
        try onThreads(6, seconds: 60) { thread in
            for step in 0..<5 {
                let result = try store.withSession(.write) { session in
                    try session.google.recordGoogleWalletCallback(passID: pass.id, eventID: event.id, nonce: "same-\(step)", saved: true, now: Date())
                }
                if result != .replayed { recorded.add(1, ordering: .relaxed) }
                _ = try store.withSession(.write) { session in
                    try session.google.recordGoogleWalletCallback(passID: pass.id, eventID: event.id, nonce: "own-\(thread)-\(step)", saved: true, now: Date())
                }
            }
        }
        #expect(recorded.load(ordering: .relaxed) == 5, "each shared nonce was taken by one thread")
        #expect(try store.withSession(.read) { try $0.google.googleWalletSaved(eventID: event.id) } == 1)
        #expect(try store.withSession(.read) { try $0.execute("SELECT nonce FROM google_wallet_nonces") }.count == 5 + 6 * 5)
    }

    @Test("nonces older than the cutoff go in batches; younger ones stay", arguments: Backend.allCases)
    func pruning(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let event = try fixture.makeEvent()
        let pass = try fixture.makePass(serial: "G-P", eventID: event.id)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try fixture.store.withSession(.write) { (session: StoreSession) throws -> Void in
            for index in 0..<5 {
                _ = try session.google.recordGoogleWalletCallback(passID: pass.id, eventID: event.id, nonce: "old-\(index)", saved: true, now: now - 100 - Double(index))
            }
            _ = try session.google.recordGoogleWalletCallback(passID: pass.id, eventID: event.id, nonce: "edge", saved: true, now: now - 50)
            _ = try session.google.recordGoogleWalletCallback(passID: pass.id, eventID: event.id, nonce: "young", saved: true, now: now)
            #expect(try session.google.deleteGoogleWalletNonces(before: now - 50, limit: 3) == 3)
            #expect(try session.google.deleteGoogleWalletNonces(before: now - 50, limit: 3) == 2)
            #expect(try session.google.deleteGoogleWalletNonces(before: now - 50, limit: 3) == 0)
            // A pruned nonce would be taken again; the kept ones are still replays.
            #expect(try session.google.recordGoogleWalletCallback(passID: pass.id, eventID: event.id, nonce: "young", saved: true, now: now) == .replayed)
            #expect(try session.google.recordGoogleWalletCallback(passID: pass.id, eventID: event.id, nonce: "edge", saved: true, now: now) == .replayed)
        }
    }
}
