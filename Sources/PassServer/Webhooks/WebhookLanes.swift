import Foundation

/// The webhook sender's queues, one lane per endpoint: at most `concurrency` deliveries in flight
/// to one endpoint at once (the others wait in its lane, first in first out), lanes served in
/// turn, and a lane that could not reach its endpoint rests.
///
/// Resting: when a delivery gets no answer (connection refused, timeout, TLS), every delivery
/// waiting in that lane, and every one arriving for `rest` seconds after, is handed back to be
/// deferred (tried again later with backoff) instead of each waiting for its own timeout, which
/// would hold the outbox's rows for minutes behind a dead server. After the rest one delivery goes
/// alone as a probe; any answer opens the lane again, none makes it rest again.
///
/// Pure: the sender's threads call it under one lock and do the sending.
struct WebhookLanes<Item: Sendable>: Sendable {
    struct Lane: Sendable {
        var waiting: [Item] = []
        /// Index of the first waiting item (taken items are dropped in bulk, not one by one).
        var head = 0
        var inFlight = 0
        /// While resting: until when, and why.
        var restingUntil: Date?
        var restReason = ""
        /// After a rest: the next delivery is a probe, sent alone.
        var probing = false

        var waitingCount: Int { waiting.count - head }
    }

    /// Deliveries in flight to one endpoint at once, at most.
    let concurrency: Int
    /// Seconds a lane rests after its endpoint could not be reached; 0: lanes never rest.
    let rest: TimeInterval
    private(set) var lanes: [String: Lane] = [:]
    /// The endpoints in the order lanes are served; `turn` is where the next search starts.
    private var order: [String] = []
    private var turn = 0

    init(concurrency: Int, rest: TimeInterval) {
        self.concurrency = max(1, concurrency)
        self.rest = rest
    }

    /// Queues `item` for `endpoint`; returns why it must be deferred at once instead (its lane rests).
    mutating func add(_ item: Item, endpoint: String, now: Date) -> String? {
        add([item], endpoint: endpoint, now: now)
    }

    /// Queues `items` for `endpoint`, in order; returns why they must be deferred at once instead.
    mutating func add(_ items: [Item], endpoint: String, now: Date) -> String? {
        if lanes[endpoint] == nil { order.append(endpoint) }
        return withLane(endpoint) { lane in
            Self.wake(&lane, now: now)
            if lane.restingUntil != nil { return lane.restReason }
            lane.waiting += items
            return nil
        }
    }

    /// Runs `body` on the lane of `endpoint` (a new one if there is none), taken out of the table
    /// meanwhile so that its queue is changed in place, never copied.
    private mutating func withLane<T>(_ endpoint: String, _ body: (inout Lane) -> T) -> T {
        var lane = lanes.removeValue(forKey: endpoint) ?? Lane()
        defer { lanes[endpoint] = lane }
        return body(&lane)
    }

    /// The next delivery a free thread may send: lanes in turn, each with room (below
    /// `concurrency`, or no probe in flight after a rest).
    mutating func next(now: Date) -> (endpoint: String, item: Item)? {
        guard !order.isEmpty else { return nil }
        let concurrency = self.concurrency
        for step in 0..<order.count {
            let index = (turn + step) % order.count
            let endpoint = order[index]
            guard lanes[endpoint] != nil else { continue }
            let item = withLane(endpoint) { lane -> Item? in
                Self.wake(&lane, now: now)
                let room = lane.probing ? (lane.inFlight == 0 ? 1 : 0) : concurrency - lane.inFlight
                guard lane.restingUntil == nil, room > 0, lane.waitingCount > 0 else { return nil }
                let item = lane.waiting[lane.head]
                lane.head += 1
                if lane.head == lane.waiting.count {
                    lane.waiting.removeAll(keepingCapacity: true)
                    lane.head = 0
                } else if lane.head >= 256 && lane.head * 2 >= lane.waiting.count {
                    lane.waiting.removeFirst(lane.head)
                    lane.head = 0
                }
                lane.inFlight += 1
                return item
            }
            if let item {
                turn = (index + 1) % order.count
                return (endpoint, item)
            }
        }
        return nil
    }

    /// A delivery to `endpoint` finished: `unreachable` says why when no answer came (the lane
    /// then rests and its waiting deliveries are returned, to be deferred), nil when one did.
    /// `opened`: the delivery was a probe that was answered, so the lane has room for more.
    mutating func finished(endpoint: String, unreachable: String?, now: Date) -> (deferred: [Item], opened: Bool) {
        guard var lane = lanes.removeValue(forKey: endpoint) else { return ([], false) }
        lane.inFlight = max(0, lane.inFlight - 1)
        var deferred: [Item] = []
        let opened = lane.probing && unreachable == nil && lane.waitingCount > 0
        if let why = unreachable, rest > 0 {
            lane.restingUntil = now.addingTimeInterval(rest)
            lane.restReason = "not sent: the endpoint could not be reached moments ago (\(why))"
            lane.probing = false
            deferred = Array(lane.waiting[lane.head...])
            lane.waiting.removeAll()
            lane.head = 0
        } else {
            lane.restingUntil = nil
            lane.probing = false
        }
        if lane.inFlight == 0 && lane.waitingCount == 0 && lane.restingUntil == nil {
            lanes[endpoint] = nil
            if let index = order.firstIndex(of: endpoint) {
                order.remove(at: index)
                if turn > index { turn -= 1 }
                if turn >= order.count { turn = 0 }
            }
        } else {
            lanes[endpoint] = lane
        }
        return (deferred, opened)
    }

    /// Every waiting delivery, taken out (the sender is stopping).
    mutating func drain() -> [Item] {
        var all: [Item] = []
        for endpoint in order where lanes[endpoint] != nil {
            withLane(endpoint) { lane in
                all += lane.waiting[lane.head...]
                lane.waiting.removeAll()
                lane.head = 0
            }
        }
        return all
    }

    /// A rest that is over becomes a probe.
    private static func wake(_ lane: inout Lane, now: Date) {
        if let until = lane.restingUntil, now >= until {
            lane.restingUntil = nil
            lane.probing = true
        }
    }
}
