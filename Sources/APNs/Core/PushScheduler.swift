import SystemSupport

/// The HTTP/2 bookkeeping of `APNSClient`, as a pure value type (no sockets, no clocks).
///
/// It knows which requests wait in the queue, which are in flight on which connection, how many
/// streams each connection may carry (the peer's SETTINGS_MAX_CONCURRENT_STREAMS, 1 until the
/// server's SETTINGS arrive), which connections are draining after a GOAWAY, and when the next
/// connection attempt may start (exponential backoff). The I/O loop tells it what happened and
/// carries out what it returns.
struct PushScheduler: Sendable {
    typealias RequestID = UInt64
    typealias ConnectionID = Int

    enum Phase: Equatable, Sendable {
        /// TCP/TLS handshake in progress; carries no streams yet.
        case connecting
        /// Open and accepting new streams.
        case ready
        /// GOAWAY received: in-flight streams finish, no new ones are started.
        case draining
    }

    struct Connection: Equatable, Sendable {
        var phase: Phase = .connecting
        /// The server's SETTINGS_MAX_CONCURRENT_STREAMS; 1 until its first SETTINGS frame.
        var maxConcurrentStreams = 1
        var inFlight: Set<RequestID> = []
        var room: Int { phase == .ready ? max(0, maxConcurrentStreams - inFlight.count) : 0 }
    }

    /// Where a request was when it was cancelled.
    enum Location: Equatable, Sendable {
        case queued
        case inFlight(ConnectionID)
        case unknown
    }

    /// How many usable (connecting or ready) connections to keep.
    let targetConnections: Int
    let backoff: Backoff
    private(set) var connections: [ConnectionID: Connection] = [:]
    /// Consecutive failed connection attempts; reset by a successful handshake.
    private(set) var connectFailures = 0
    /// Earliest time (caller's monotonic seconds) the next connection attempt may start.
    private(set) var nextConnectAttempt: Double = 0
    private var queue: [RequestID] = []
    private var queueHead = 0
    private var nextConnectionID: ConnectionID = 1

    init(targetConnections: Int, backoff: Backoff = Backoff()) {
        self.targetConnections = max(1, targetConnections)
        self.backoff = backoff
    }

    /// Requests waiting for a stream, oldest first.
    var queued: ArraySlice<RequestID> { queue[queueHead...] }
    var queuedCount: Int { queue.count - queueHead }
    var inFlightCount: Int { connections.values.reduce(0) { $0 + $1.inFlight.count } }
    var hasReadyConnection: Bool { connections.values.contains { $0.phase == .ready } }

    // MARK: Requests

    mutating func enqueue(_ id: RequestID) {
        queue.append(id)
    }

    /// Removes a request wherever it is (timeout); says where it was so the caller can reset its stream.
    mutating func cancel(_ id: RequestID) -> Location {
        if let index = queue[queueHead...].firstIndex(of: id) {
            queue.remove(at: index)
            return .queued
        }
        for (connectionID, connection) in connections where connection.inFlight.contains(id) {
            connections[connectionID]?.inFlight.remove(id)
            return .inFlight(connectionID)
        }
        return .unknown
    }

    /// Assigns queued requests to ready connections with free streams, least loaded first.
    mutating func submissions() -> [(request: RequestID, connection: ConnectionID)] {
        var result: [(request: RequestID, connection: ConnectionID)] = []
        while queueHead < queue.count {
            var best: (id: ConnectionID, room: Int)? = nil
            for (id, connection) in connections {
                let room = connection.room
                guard room > 0 else { continue }
                if let current = best, current.room > room || (current.room == room && current.id < id) { continue }
                best = (id, room)
            }
            guard let connectionID = best?.id else { break }
            let request = queue[queueHead]
            queueHead += 1
            connections[connectionID]?.inFlight.insert(request)
            result.append((request, connectionID))
        }
        compactQueue()
        return result
    }

    /// The stream got an HTTP answer (any status).
    mutating func streamAnswered(_ id: RequestID, on connectionID: ConnectionID) {
        connections[connectionID]?.inFlight.remove(id)
    }

    /// The server never processed the stream (REFUSED_STREAM, above a GOAWAY's last stream id, or
    /// never sent): it goes back to the front of the queue, to be sent on another connection.
    mutating func streamRefused(_ id: RequestID, on connectionID: ConnectionID) {
        guard connections[connectionID]?.inFlight.remove(id) != nil else { return }
        if queueHead > 0 {
            queueHead -= 1
            queue[queueHead] = id
        } else {
            queue.insert(id, at: 0)
        }
    }

    // MARK: Connections

    /// Connections to open now: only when work waits, up to the target, one at a time while failing.
    mutating func connectionsToOpen(now: Double) -> [ConnectionID] {
        guard queuedCount > 0, now >= nextConnectAttempt else { return [] }
        let usable = connections.values.filter { $0.phase != .draining }
        let connecting = usable.filter { $0.phase == .connecting }.count
        var wanted = targetConnections - usable.count
        if connectFailures > 0 { wanted = min(wanted, 1 - connecting) }
        guard wanted > 0 else { return [] }
        var opened: [ConnectionID] = []
        for _ in 0..<wanted {
            let id = nextConnectionID
            nextConnectionID += 1
            connections[id] = Connection()
            opened.append(id)
        }
        return opened
    }

    /// TLS and the HTTP/2 preface are done: the connection may carry one stream until SETTINGS arrive.
    mutating func connectionEstablished(_ id: ConnectionID) {
        guard connections[id]?.phase == .connecting else { return }
        connections[id]?.phase = .ready
    }

    /// The server's SETTINGS frame announced its stream limit (HTTP/2 default: unlimited).
    /// Its arrival also proves the server accepted us (TLS 1.3 rejects a client certificate only
    /// after the handshake), so it resets the backoff.
    mutating func remoteSettings(_ id: ConnectionID, maxConcurrentStreams: UInt32) {
        guard connections[id] != nil else { return }
        connections[id]?.maxConcurrentStreams = Int(min(maxConcurrentStreams, 100_000))
        connectFailures = 0
        nextConnectAttempt = 0
    }

    /// GOAWAY received: finish what the server accepted, start nothing new here.
    mutating func goAway(_ id: ConnectionID) {
        guard connections[id] != nil else { return }
        connections[id]?.phase = .draining
    }

    /// A draining connection with nothing left in flight can be closed.
    func isFinished(_ id: ConnectionID) -> Bool {
        guard let connection = connections[id] else { return true }
        return connection.phase == .draining && connection.inFlight.isEmpty
    }

    /// A connection failed before the server accepted it (TCP, TLS, or rejected before its first
    /// SETTINGS frame). Returns what to fail: its in-flight requests, plus the queued ones when no
    /// other connection can carry them (so callers learn about e.g. an untrusted certificate).
    mutating func connectionFailed(_ id: ConnectionID, now: Double, jitter: Double) -> (inFlight: [RequestID], queued: [RequestID]) {
        let inFlight = connections.removeValue(forKey: id)?.inFlight.sorted() ?? []
        connectFailures += 1
        nextConnectAttempt = now + backoff.delay(afterFailures: connectFailures, jitter: jitter)
        guard !connections.values.contains(where: { $0.phase != .draining }) else { return (inFlight, []) }
        return (inFlight, drainQueue())
    }

    /// An established connection closed. Returns its in-flight requests: they may or may not have
    /// reached APNs, so they fail (retryably) rather than being silently resent.
    mutating func connectionClosed(_ id: ConnectionID) -> [RequestID] {
        guard let connection = connections.removeValue(forKey: id) else { return [] }
        return connection.inFlight.sorted()
    }

    /// Empties the queue (shutdown, or no way to connect).
    mutating func drainQueue() -> [RequestID] {
        let drained = Array(queue[queueHead...])
        queue.removeAll()
        queueHead = 0
        return drained
    }

    private mutating func compactQueue() {
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead > 4096, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }
}
