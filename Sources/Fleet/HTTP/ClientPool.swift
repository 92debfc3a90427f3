// The fleet's HTTP/1.1 client: a bounded pool of keep-alive connections to one server port and a
// FIFO of requests waiting for one (event loop thread only; see Fleet.swift). A hundred thousand
// phones share a few dozen connections, as they would share a reverse proxy's.

import Foundation

final class ClientPool {
    typealias Exchange = ClientConnection.Exchange
    typealias Completion = (Result<ClientResponse, FleetError>) -> Void

    let port: UInt16
    let capacity: Int
    let requestTimeout: Double
    /// An idle connection older than this is closed rather than reused: the server may be closing
    /// it at this very moment (its idle timeout), which would fail a request for no reason.
    let maxIdle: Double
    private var queue: [Exchange] = []
    private var queueHead = 0
    private var connections: [ClientConnection] = []
    private var polled: [ClientConnection] = []
    private var finished: [(Exchange, Result<ClientResponse, FleetError>)] = []
    private let scratch: UnsafeMutableBufferPointer<UInt8>

    init(port: UInt16, capacity: Int, requestTimeout: Double, maxIdle: Double = 4) {
        self.port = port
        self.capacity = max(1, capacity)
        self.requestTimeout = requestTimeout
        self.maxIdle = maxIdle
        scratch = .allocate(capacity: 256 << 10)
    }

    deinit {
        for connection in connections { connection.close() }
        scratch.deallocate()
    }

    /// Requests queued or on a connection.
    var outstanding: Int { queue.count - queueHead + connections.reduce(0) { $0 + ($1.exchange == nil ? 0 : 1) } }

    /// Queues a request; `completion` runs later on the loop thread, never inside this call.
    func send(_ request: ClientRequest, now: Double, completion: @escaping Completion) {
        let exchange = Exchange(request: request, completion: completion, queuedAt: now)
        if let port = request.port {
            // Not a pool connection: a request aimed elsewhere goes at once, on its own.
            open(prepare(exchange, now: now), port: port, oneShot: true, now: now)
        } else {
            queue.append(exchange)
        }
    }

    /// Hands queued requests to idle connections, opening new ones up to the capacity.
    func dispatch(now: Double) {
        var pooled = connections.reduce(0) { $0 + ($1.oneShot || $1.state == .closed ? 0 : 1) }
        while queueHead < queue.count {
            let exchange = prepare(queue[queueHead], now: now)
            if let idle = takeIdle(now: now, pooled: &pooled) {
                idle.assign(exchange, now: now)
            } else if pooled < capacity {
                open(exchange, port: port, oneShot: false, now: now)
                pooled += 1
            } else {
                break
            }
            queueHead += 1
        }
        if queueHead > 4096, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }

    /// Appends a pollfd per connection; `handle` expects the same slice back after poll().
    func appendPollFDs(to fds: inout [pollfd]) {
        polled = connections.filter { $0.state != .closed }
        for connection in polled { fds.append(pollfd(fd: connection.fd, events: connection.pollEvents, revents: 0)) }
    }

    /// Reads and writes what poll() reported ready, then fails requests past their deadline.
    func handle(_ fds: ArraySlice<pollfd>, now: Double) {
        for (connection, entry) in zip(polled, fds) where entry.revents != 0 {
            if let (exchange, result) = connection.handle(revents: entry.revents, scratch: scratch, now: now) {
                settle(exchange, result, connection: connection)
            }
        }
        for connection in connections {
            if let exchange = connection.exchange, now > exchange.deadline {
                if let (failed, result) = connection.fail(FleetError(.timeout, "no complete answer in \(requestTimeout)s")) {
                    settle(failed, result, connection: connection)
                }
            }
        }
        polled.removeAll(keepingCapacity: true)
        connections.removeAll { $0.state == .closed }
    }

    /// Runs the completions of finished requests (which may send more); returns how many ran.
    @discardableResult
    func complete() -> Int {
        var ran = 0
        while !finished.isEmpty {
            let batch = finished
            finished.removeAll()
            for (exchange, result) in batch { exchange.completion(result) }
            ran += batch.count
        }
        return ran
    }

    /// Fails everything queued or in flight and closes every connection.
    func shutdown() {
        let error = FleetError(.shutdown, "the fleet is shutting down")
        for connection in connections {
            if let (exchange, result) = connection.fail(error) { finished.append((exchange, result)) }
        }
        connections.removeAll()
        for exchange in queue[queueHead...] { finished.append((exchange, .failure(error))) }
        queue.removeAll()
        queueHead = 0
        complete()
    }

    // MARK: Pieces

    private func prepare(_ exchange: Exchange, now: Double) -> Exchange {
        var prepared = exchange
        let port = exchange.request.port ?? self.port
        prepared.bytes = exchange.request.serialized(host: "127.0.0.1:\(port)")
        prepared.startedAt = now
        prepared.deadline = now + requestTimeout
        return prepared
    }

    private func open(_ exchange: Exchange, port: UInt16, oneShot: Bool, now: Double) {
        do throws(FleetError) {
            connections.append(try ClientConnection(port: port, exchange: exchange, oneShot: oneShot, now: now))
        } catch {
            finished.append((exchange, .failure(error)))
        }
    }

    private func takeIdle(now: Double, pooled: inout Int) -> ClientConnection? {
        while let index = connections.firstIndex(where: { $0.state == .idle }) {
            let connection = connections[index]
            guard connection.isStale(now: now, maxIdle: maxIdle) else { return connection }
            connection.close()
            connections.remove(at: index)
            pooled -= 1
        }
        return nil
    }

    /// A request on a reused connection that failed before any answer may have met a connection
    /// the server was closing; an idempotent one is resent once, first in line.
    private func settle(_ exchange: Exchange, _ result: Result<ClientResponse, FleetError>, connection: ClientConnection) {
        if case .failure(let error) = result, error.isTransport, connection.failedBeforeAnswer,
            exchange.request.isIdempotent, !exchange.resent, exchange.request.port == nil
        {
            var again = exchange
            again.resent = true
            queue.insert(again, at: queueHead)
            return
        }
        finished.append((exchange, result))
    }
}
