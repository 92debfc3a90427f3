/// What one phone's Wallet does after a push, as a state machine: think a moment, ask which of its
/// passes changed since its last tag, fetch each of them, keep the new tag. A failed step is tried
/// again later with backoff; a push that arrives mid-way starts another round afterwards.
///
/// Pure: each event returns the next action, which the driver carries out (a timer or a request)
/// and reports back as the next event.
struct PhoneSync: Equatable {
    enum Phase: Equatable { case idle, thinking, listing, fetching, retrying }

    enum Action: Equatable {
        /// Nothing to do until the next push.
        case none
        /// Wait the think time, then report `thinkingDone`.
        case think
        /// `GET …/registrations/{passType}?passesUpdatedSince=tag` (no query without a tag).
        case list(tag: String?)
        /// `GET /v1/passes/{passType}/{serial}` of this pass slot, with `If-Modified-Since`.
        case fetch(slot: Int)
        /// Wait the backoff after this many consecutive failures, then report `retryDue`.
        case retry(failures: Int)
    }

    private(set) var phase = Phase.idle
    /// The `lastUpdated` tag of the last complete round.
    private(set) var tag: String?
    /// Slots still to fetch in this round, in order.
    private(set) var pending: [Int] = []
    /// Consecutive failures of the current step.
    private(set) var failures = 0
    private var roundTag: String?
    private var pushedAgain = false

    init(tag: String? = nil) {
        self.tag = tag
    }

    mutating func pushArrived() -> Action {
        guard phase == .idle else {
            pushedAgain = true
            return .none
        }
        phase = .thinking
        return .think
    }

    mutating func thinkingDone() -> Action {
        phase = .listing
        return .list(tag: tag)
    }

    /// The list answered: `slots` changed (empty for 204), `lastUpdated` is the answer's tag.
    mutating func listed(slots: [Int], lastUpdated: String?) -> Action {
        failures = 0
        guard let first = slots.first else { return settle() }
        pending = slots
        roundTag = lastUpdated
        phase = .fetching
        return .fetch(slot: first)
    }

    /// The current fetch finished (a new pass, or an answer the phone keeps no retry for).
    mutating func fetched() -> Action {
        failures = 0
        if !pending.isEmpty { pending.removeFirst() }
        if let next = pending.first { return .fetch(slot: next) }
        // Only a round whose every pass arrived moves the tag, so nothing changed is ever skipped.
        if let roundTag { tag = roundTag }
        roundTag = nil
        return settle()
    }

    /// The list or the current fetch failed (connection, timeout, 5xx).
    mutating func failed() -> Action {
        failures += 1
        phase = .retrying
        return .retry(failures: failures)
    }

    /// The backoff is over: the step that failed runs again.
    mutating func retryDue() -> Action {
        if let next = pending.first {
            phase = .fetching
            return .fetch(slot: next)
        }
        phase = .listing
        return .list(tag: tag)
    }

    private mutating func settle() -> Action {
        if pushedAgain {
            pushedAgain = false
            phase = .thinking
            return .think
        }
        phase = .idle
        return .none
    }
}
