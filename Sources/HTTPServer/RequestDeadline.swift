import Synchronization
import SystemSupport

/// Since when one connection has been waiting for its current request, as an atomic the
/// connection's worker thread sets without any lock and the deadline sweep reads.
///
/// A request's arrival and its completion happen once per request on every keep-alive connection,
/// from every worker thread at once; keeping this instant inside the server-wide connection table
/// made each request take that table's lock twice, and the lock became the busiest thing in a
/// server answering small requests. The table now holds a reference to this clock and takes its
/// lock only when a connection opens or closes (and for the sweep).
final class RequestDeadline: Sendable {
    /// Nanoseconds since `origin`, plus one; 0 while a response is being produced or sent (the
    /// deadline covers only the arrival of a request).
    private let since = Atomic<Int64>(0)

    /// The instant every stored value counts from.
    private static let origin = ContinuousClock.now

    init(waitingSince now: ContinuousClock.Instant) {
        since.store(Self.encode(now), ordering: .relaxed)
    }

    /// A response was queued: the request has arrived (or was answered early).
    func answered() {
        since.store(0, ordering: .relaxed)
    }

    /// The request is over; the connection now waits for the next one.
    func awaitNext(now: ContinuousClock.Instant) {
        since.store(Self.encode(now), ordering: .relaxed)
    }

    /// Whether the connection has waited `timeout` or longer for its request; true only once per
    /// wait (the wait is then over, as if the request had arrived).
    func expire(now: ContinuousClock.Instant, timeout: Duration) -> Bool {
        let value = since.load(ordering: .relaxed)
        guard value != 0, Self.encode(now) - value >= timeout.nanoseconds else { return false }
        // A request that arrives meanwhile (0) or a new wait (a later instant) wins.
        return since.compareExchange(expected: value, desired: 0, ordering: .relaxed).exchanged
    }

    private static func encode(_ instant: ContinuousClock.Instant) -> Int64 {
        (instant - origin).nanoseconds + 1
    }
}
