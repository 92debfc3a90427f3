import Foundation
import PassServerTesting
@testable import PassServer
import Storage
import Testing

@Suite("Push dispatcher: where claims start", .offCooperativePool)
struct ClaimCursorTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func rows(_ ids: [Int64], dueMillis: Int64 = 1_000) -> [OutboxRow] {
        ids.map { id in
            var row = OutboxRow(id: id, pushToken: "t\(id)", passTypeIdentifier: "pass.a", generation: 1, attempts: 0, firstEnqueuedAt: now)
            row.claimPosition = OutboxPosition(nextAttemptMillis: dueMillis, id: id)
            return row
        }
    }

    @Test("after a full claim the next one continues past the last row claimed (in claim order, not id order)")
    func continuesAfterAFullClaim() {
        var cursor = ClaimCursor()
        #expect(cursor.start(now: now) == nil, "the first claim starts at the beginning")
        var claimed = rows([7, 3, 5])
        claimed[1].claimPosition = OutboxPosition(nextAttemptMillis: 2_000, id: 3) // due later: last in claim order
        cursor.claimed(claimed, limit: 3, from: nil, now: now)
        #expect(cursor.start(now: now.addingTimeInterval(0.5)) == OutboxPosition(nextAttemptMillis: 2_000, id: 3))
        cursor.claimed(rows([9, 10, 11], dueMillis: 2_000), limit: 3, from: cursor.start(now: now), now: now.addingTimeInterval(0.5))
        #expect(cursor.start(now: now.addingTimeInterval(0.6)) == OutboxPosition(nextAttemptMillis: 2_000, id: 11))
    }

    @Test("a claim that did not fill its limit sends the next one back to the start")
    func shortClaimRestarts() {
        var cursor = ClaimCursor()
        cursor.claimed(rows([1, 2, 3]), limit: 3, from: nil, now: now)
        #expect(cursor.start(now: now) != nil, "a full claim gives a position to continue from")
        cursor.claimed(rows([4]), limit: 3, from: cursor.start(now: now), now: now)
        #expect(cursor.start(now: now) == nil)
    }

    @Test("however full the claims, one starts from the beginning at least every fullScanInterval")
    func periodicFullScan() {
        var cursor = ClaimCursor()
        cursor.claimed(rows([1, 2]), limit: 2, from: nil, now: now)
        let justBefore = now.addingTimeInterval(ClaimCursor.fullScanInterval * 0.9)
        let start = cursor.start(now: justBefore)
        #expect(start != nil)
        cursor.claimed(rows([3, 4]), limit: 2, from: start, now: justBefore)
        #expect(cursor.start(now: now.addingTimeInterval(ClaimCursor.fullScanInterval)) == nil, "continuing claims do not push the full scan back")
        cursor.claimed(rows([1, 5]), limit: 2, from: nil, now: now.addingTimeInterval(ClaimCursor.fullScanInterval))
        #expect(cursor.start(now: now.addingTimeInterval(ClaimCursor.fullScanInterval * 1.5)) == OutboxPosition(nextAttemptMillis: 1_000, id: 5))
    }
}
