import PassServerTesting
@testable import Storage
import Testing

/// The transaction state machine on its own: what each transition leaves and what ending a
/// transaction takes, without a connection.
@Suite("A session's transaction state", .offCooperativePool)
struct TransactionStateTests {
    /// The control words and query count of `steps`, to compare what would be sent.
    static func words(_ steps: [PipelineStep]) -> [String] {
        steps.map {
            switch $0 {
            case .control(let sql): sql
            case .query: "query"
            }
        }
    }

    @Test func aPipelinedBeginWaitsForTheFirstStatementAndGoesWithIt() {
        var state = TransactionState.idle
        state.begin(beginUnsent: true)
        #expect(state.hasUnsent)
        let first = state.takeUnsent()
        #expect(Self.words(first) == ["BEGIN"])
        #expect(!state.hasUnsent)
        let second = state.takeUnsent()
        #expect(second.isEmpty, "handed over once")
        guard case .commit(let steps) = state.end(bodyThrew: false) else {
            Issue.record("a transaction that ran a statement commits")
            return
        }
        #expect(Self.words(steps) == ["COMMIT"])
        #expect(!state.inTransaction)
    }

    @Test func aTransactionThatNeverRanAStatementSendsNothing() {
        var state = TransactionState.idle
        state.begin(beginUnsent: true)
        guard case .nothing = state.end(bodyThrew: false) else {
            Issue.record("nothing reached the server")
            return
        }
        state.begin(beginUnsent: true)
        guard case .rollBack(send: false, error: nil) = state.end(bodyThrew: true) else {
            Issue.record("nothing to roll back on the server")
            return
        }
    }

    @Test func deferredWritesGoWithTheNextStatementOrTheCommit() {
        var state = TransactionState.idle
        let outside = state.deferWrite(.query("SELECT 1"))
        #expect(!outside, "outside a transaction a write runs at once")
        state.begin(beginUnsent: true)
        let kept = [state.deferWrite(.query("SELECT 1")), state.deferWrite(.query("SELECT 2"))]
        #expect(kept == [true, true])
        guard case .commit(let steps) = state.end(bodyThrew: false) else {
            Issue.record("deferred writes are committed")
            return
        }
        #expect(Self.words(steps) == ["BEGIN", "query", "query", "COMMIT"])
    }

    @Test func aNestedFailureDoomsTheWholeTransaction() throws {
        var state = TransactionState.idle
        state.begin(beginUnsent: false)
        state.enterNested()
        try state.checkMayRun()
        state.leaveNested(threw: true)
        #expect(throws: StorageError.self) { try state.checkMayRun() }
        guard case .rollBack(send: true, error: .some) = state.end(bodyThrew: false) else {
            Issue.record("the outermost call rolls back and throws though its body caught the error")
            return
        }
        #expect(!state.inTransaction)
    }

    @Test func aNestedSuccessLeavesTheTransactionOpen() throws {
        var state = TransactionState.idle
        state.begin(beginUnsent: false)
        state.enterNested()
        let final = state.sendFinal()
        #expect(final == nil, "a nested final statement is a plain one")
        state.leaveNested(threw: false)
        try state.checkMayRun()
        guard case .commit = state.end(bodyThrew: false) else {
            Issue.record("committed")
            return
        }
    }

    @Test func aFinalStatementEndsTheTransaction() throws {
        var state = TransactionState.idle
        state.begin(beginUnsent: true)
        let kept = state.deferWrite(.query("SELECT 1"))
        #expect(kept)
        let final = state.sendFinal()
        let before = try #require(final)
        #expect(Self.words(before) == ["BEGIN", "query"])
        #expect(throws: StorageError.self) { try state.checkMayRun() }
        state.finalCommitted()
        #expect(throws: StorageError.self) { try state.checkMayRun() }
        guard case .nothing = state.end(bodyThrew: true) else {
            Issue.record("nothing the body throws after the commit undoes it")
            return
        }
    }

    @Test func aFailedFinalStatementRollsBack() {
        var state = TransactionState.idle
        state.begin(beginUnsent: true)
        let sent = state.sendFinal()
        #expect(sent != nil)
        guard case .rollBack(send: true, error: .some) = state.end(bodyThrew: false) else {
            Issue.record("the body caught the final statement's error: rolled back and thrown")
            return
        }
    }
}
