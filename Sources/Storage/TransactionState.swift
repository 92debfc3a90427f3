/// Where a session's transaction stands, each state holding what it needs to know.
///
/// `StoreSession` keeps one of these and changes it only through the methods below, which return
/// what the session must send; the I/O stays in the session. A transition that makes no sense
/// (ending a transaction that never began, committing a final statement that was never sent) is a
/// bug in the session, and traps saying which.
///
///     idle ──begin──▶ open ──nested call threw──▶ doomed
///                      │
///                      └──final statement sent──▶ finishing ──its COMMIT succeeded──▶ committed
///
/// Every state but `idle` ends with `end(bodyThrew:)`, back to `idle`.
enum TransactionState {
    /// No transaction: every statement commits on its own.
    case idle
    /// A transaction that runs statements. `depth` counts the `transaction` calls it is nested in
    /// (1: the outermost alone); `unsent` is what the connection has not been sent yet.
    case open(depth: Int, unsent: Unsent)
    /// A nested call threw: the transaction is lost even if the caller caught the error. No
    /// statement may run; the outermost call rolls back and throws. `begun`: BEGIN reached the
    /// server, so there is a transaction there to roll back.
    case doomed(depth: Int, begun: Bool)
    /// The final statement went out with the COMMIT and has not come back committed (it may have
    /// failed). No statement may run; unless it commits, the outermost call rolls back.
    case finishing(depth: Int)
    /// The final statement and its COMMIT succeeded. No statement may run; the body may still be
    /// running, but nothing it throws can undo the commit.
    case committed(depth: Int)

    /// What a pipelining connection has not been sent yet in an open transaction: its BEGIN until
    /// its first statement, and the writes whose rows nobody reads (`executeDeferred`).
    struct Unsent {
        var begin: Bool
        var deferred: [PipelineStep] = []

        var isEmpty: Bool { !begin && deferred.isEmpty }
        var steps: [PipelineStep] { (begin ? [.control("BEGIN")] : []) + deferred }
    }

    /// What ending the outermost transaction takes.
    enum Ending {
        /// Nothing to send: already committed by its final statement, or it never reached the server.
        case nothing
        /// Send these (ending with COMMIT); if that fails, roll back.
        case commit([PipelineStep])
        /// Roll back (`send`: there is a transaction on the server to roll back), then throw `error`
        /// if the body did not throw one of its own.
        case rollBack(send: Bool, error: StorageError?)
    }

    /// Whether a transaction is open, in whatever state: a `transaction` call then nests in it.
    var inTransaction: Bool {
        if case .idle = self { return false }
        return true
    }

    /// Whether the transaction has something the connection has not been sent yet.
    var hasUnsent: Bool {
        if case .open(_, let unsent) = self { return !unsent.isEmpty }
        return false
    }

    /// Opens the outermost transaction. `beginUnsent`: the connection pipelines, so BEGIN waits to
    /// go with the first statement; otherwise the caller has already sent it.
    mutating func begin(beginUnsent: Bool) {
        guard case .idle = self else { preconditionFailure("a transaction began while \(self): nested calls go through enterNested") }
        self = .open(depth: 1, unsent: Unsent(begin: beginUnsent))
    }

    /// A `transaction` call nested in the open one begins.
    mutating func enterNested() {
        self = withDepth { depth in
            guard depth > 0 else { preconditionFailure("a nested transaction began with no transaction open") }
            return depth + 1
        }
    }

    /// A nested `transaction` call ends; if it threw, the whole transaction is lost.
    mutating func leaveNested(threw: Bool) {
        self = withDepth { depth in
            guard depth > 1 else { preconditionFailure("a nested transaction ended while \(self): the outermost one ends with end(bodyThrew:)") }
            return depth - 1
        }
        if threw, case .open(let depth, let unsent) = self {
            self = .doomed(depth: depth, begun: !unsent.begin)
        }
    }

    /// Throws unless a statement may run now.
    func checkMayRun() throws {
        switch self {
        case .idle, .open: return
        case .doomed: throw Self.rolledBack
        case .finishing, .committed: throw Self.finished
        }
    }

    /// Hands over what the connection has not been sent yet (to go before the next statement),
    /// which is then sent.
    mutating func takeUnsent() -> [PipelineStep] {
        guard case .open(let depth, let unsent) = self else { return [] }
        self = .open(depth: depth, unsent: Unsent(begin: false))
        return unsent.steps
    }

    /// Keeps a write to go with the next statement or the COMMIT; false outside a transaction
    /// (the caller sends it at once).
    mutating func deferWrite(_ step: PipelineStep) -> Bool {
        guard case .open(let depth, var unsent) = self else { return false }
        unsent.deferred.append(step)
        self = .open(depth: depth, unsent: unsent)
        return true
    }

    /// The outermost transaction's final statement is about to go out: returns what must precede it
    /// (the COMMIT follows it). Nil if it is not the outermost transaction's (nested, or no
    /// transaction): then it is a plain statement.
    mutating func sendFinal() -> [PipelineStep]? {
        guard case .open(1, let unsent) = self else { return nil }
        self = .finishing(depth: 1)
        return unsent.steps
    }

    /// The final statement and its COMMIT came back successfully.
    mutating func finalCommitted() {
        guard case .finishing(let depth) = self else { preconditionFailure("a final statement committed while \(self)") }
        self = .committed(depth: depth)
    }

    /// Ends the outermost transaction, back to `idle`, and says what that takes.
    mutating func end(bodyThrew: Bool) -> Ending {
        defer { self = .idle }
        switch self {
        case .idle:
            preconditionFailure("a transaction ended that never began")
        case .open(let depth, let unsent):
            precondition(depth == 1, "the outermost transaction ended while \(depth - 1) nested in it had not")
            if bodyThrew { return .rollBack(send: !unsent.begin, error: nil) }
            // A transaction that never ran a statement never reached the server.
            if unsent.begin && unsent.deferred.isEmpty { return .nothing }
            return .commit(unsent.steps + [.control("COMMIT")])
        case .doomed(_, let begun):
            return .rollBack(send: begun, error: bodyThrew ? nil : Self.rolledBack)
        case .finishing:
            // The body caught the final statement's error: the transaction is lost all the same.
            return .rollBack(send: true, error: bodyThrew ? nil : Self.finalFailed)
        case .committed:
            // Committed with its final statement; whatever failed after it ran no statement.
            return .nothing
        }
    }

    /// The state with its depth changed (trapping when idle, which has none).
    private func withDepth(_ change: (Int) -> Int) -> TransactionState {
        switch self {
        case .idle: return .open(depth: change(0), unsent: Unsent(begin: false))
        case .open(let depth, let unsent): return .open(depth: change(depth), unsent: unsent)
        case .doomed(let depth, let begun): return .doomed(depth: change(depth), begun: begun)
        case .finishing(let depth): return .finishing(depth: change(depth))
        case .committed(let depth): return .committed(depth: change(depth))
        }
    }

    static let rolledBack = StorageError(.backend, "the transaction was rolled back: a transaction nested in it failed")
    static let finished = StorageError(.backend, "the transaction already ended with its final statement")
    static let finalFailed = StorageError(.backend, "the transaction was rolled back: its final statement failed")
}
