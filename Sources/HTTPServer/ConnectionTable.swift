/// The open connections, as libmicrohttpd reports them: how many there are (for the server's
/// cap), how many each client address holds (for the per-client cap) and since when each has
/// been waiting for its current request (for the request deadline, each connection's own
/// `RequestDeadline`, which its worker thread sets without this table's lock). A value type
/// without I/O; `ConnectionRegistry` owns one behind a lock.
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
        /// Whether it was admitted (every connection is; a defensive check that a close never
        /// frees a slot nobody took).
        let holdsSlot: Bool
        /// Since when the connection has been waiting for its current request.
        let deadline: RequestDeadline
    }

    /// Connections from one client address (trusted proxies exempt).
    let limit: Int
    /// Connections in all, trusted proxies included.
    let totalLimit: Int
    let trusted: [AddressRange]
    private(set) var connections: [UInt: Connection] = [:]
    private(set) var perClient: [IPAddress: Int] = [:]
    /// Slots taken by `admit` (in all, and from the address if it counts) and not yet handed to a
    /// started connection: occupied by connections admitted, started or not.
    private(set) var total = 0
    /// Slots taken by `admit` on a worker thread and not yet handed to a started connection, with
    /// the address they count against (nil: exempt).
    private var admitted: [UInt: IPAddress?] = [:]

    /// Why `admit` refused a connection.
    enum Refusal: Equatable {
        /// The server holds `totalLimit` connections.
        case full
        /// The client's address holds `limit` connections.
        case tooManyFromClient
    }

    init(limit: Int, totalLimit: Int = .max, trusted: [AddressRange]) {
        self.limit = limit
        self.totalLimit = totalLimit
        self.trusted = trusted
    }

    /// Whether a new connection from `peer` may open (nil) or why not, taking its slots if so.
    /// Trusted proxies and non-IP peers count only against the total.
    mutating func admit(_ peer: IPAddress?, thread: UInt) -> Refusal? {
        if let stale = admitted.removeValue(forKey: thread) { free(stale) }
        guard total < totalLimit else { return .full }
        var counted: IPAddress?
        if let peer, !trusted.contains(peer) {
            let open = perClient[peer, default: 0]
            guard open < limit else { return .tooManyFromClient }
            perClient[peer] = open + 1
            counted = peer
        }
        total += 1
        admitted[thread] = .some(counted)
        return nil
    }

    /// A connection admitted on `thread` has started.
    mutating func start(_ key: UInt, fd: Int32, peer: IPAddress?, thread: UInt, deadline: RequestDeadline) {
        let slot = admitted.removeValue(forKey: thread)
        connections[key] = Connection(fd: fd, peer: peer, counted: slot ?? nil, holdsSlot: slot != nil, deadline: deadline)
    }

    /// The connection has closed: its slots are free again.
    mutating func close(_ key: UInt) {
        guard let connection = connections.removeValue(forKey: key), connection.holdsSlot else { return }
        free(connection.counted)
    }

    /// The connections waiting longer than `timeout`; each is reported once per wait.
    func expire(now: ContinuousClock.Instant, timeout: Duration) -> [Connection] {
        connections.values.filter { $0.deadline.expire(now: now, timeout: timeout) }
    }

    /// Open connections counted against `address`.
    func count(for address: IPAddress) -> Int {
        perClient[address, default: 0]
    }

    /// Frees one slot of the total and, if `address` is counted, one of its own.
    private mutating func free(_ address: IPAddress?) {
        total -= 1
        guard let address else { return }
        let open = perClient[address, default: 0] - 1
        perClient[address] = open > 0 ? open : nil
    }
}
