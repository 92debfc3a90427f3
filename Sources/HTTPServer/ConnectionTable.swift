/// The open connections, as libmicrohttpd reports them: how many each client address holds (for
/// the per-client cap) and since when each has been waiting for its current request (for the
/// request deadline). A value type without I/O; `ConnectionRegistry` owns one behind a lock.
///
/// libmicrohttpd asks the accept policy (`admit`) and then reports the new connection as started
/// (`start`) on the same worker thread, with no other accept on that thread in between. `admit`
/// counts the slot at once, so simultaneous accepts on several workers can never overshoot the
/// cap; `start` hands the slot to the connection, `close` frees it. A connection that fails
/// between the two (libmicrohttpd out of memory, or at its own connection limit) never starts:
/// its slot is freed by the next `admit` on that thread.
struct ConnectionTable {
    struct Connection {
        /// The socket, for `shutdown(2)` when the deadline passes.
        let fd: Int32
        /// The TCP peer.
        let peer: IPAddress?
        /// The address this connection counts against (nil: exempt, a trusted proxy).
        let counted: IPAddress?
        /// When the connection became ready for its current request; nil while a response is
        /// being produced or sent (the deadline covers only the arrival of a request).
        var waitingSince: ContinuousClock.Instant?
    }

    let limit: Int
    let trusted: [AddressRange]
    private(set) var connections: [UInt: Connection] = [:]
    private(set) var perClient: [IPAddress: Int] = [:]
    /// Slots taken by `admit` on a worker thread and not yet handed to a started connection.
    private var admitted: [UInt: IPAddress] = [:]

    init(limit: Int, trusted: [AddressRange]) {
        self.limit = limit
        self.trusted = trusted
    }

    /// Whether a new connection from `peer` may open, counting it if so. Trusted proxies and
    /// non-IP peers are not counted.
    mutating func admit(_ peer: IPAddress?, thread: UInt) -> Bool {
        if let stale = admitted.removeValue(forKey: thread) { release(stale) }
        guard let peer, !trusted.contains(peer) else { return true }
        let open = perClient[peer, default: 0]
        guard open < limit else { return false }
        perClient[peer] = open + 1
        admitted[thread] = peer
        return true
    }

    /// A connection admitted on `thread` has started.
    mutating func start(_ key: UInt, fd: Int32, peer: IPAddress?, thread: UInt, now: ContinuousClock.Instant) {
        connections[key] = Connection(fd: fd, peer: peer, counted: admitted.removeValue(forKey: thread), waitingSince: now)
    }

    /// The connection has closed: its slot is free again.
    mutating func close(_ key: UInt) {
        guard let connection = connections.removeValue(forKey: key) else { return }
        if let counted = connection.counted { release(counted) }
    }

    /// A response was queued: the request has arrived (or was answered early).
    mutating func answered(_ key: UInt) {
        connections[key]?.waitingSince = nil
    }

    /// The request is over; the connection now waits for the next one.
    mutating func awaitNext(_ key: UInt, now: ContinuousClock.Instant) {
        connections[key]?.waitingSince = now
    }

    /// The connections waiting longer than `timeout`; each is reported once.
    mutating func expire(now: ContinuousClock.Instant, timeout: Duration) -> [Connection] {
        var expired: [Connection] = []
        for (key, connection) in connections {
            guard let since = connection.waitingSince, now - since >= timeout else { continue }
            connections[key]?.waitingSince = nil
            expired.append(connection)
        }
        return expired
    }

    /// Open connections counted against `address`.
    func count(for address: IPAddress) -> Int {
        perClient[address, default: 0]
    }

    private mutating func release(_ address: IPAddress) {
        let open = perClient[address, default: 0] - 1
        perClient[address] = open > 0 ? open : nil
    }
}
