// One non-blocking TCP connection of the fleet's HTTP/1.1 client (event loop thread only; see
// Fleet.swift). It carries one request at a time; a keep-alive connection goes back to the pool.

import Foundation
import HTTPServer

final class ClientConnection {
    enum State { case connecting, busy, idle, closed }

    /// A request and its completion, while queued or on a connection.
    struct Exchange {
        var request: ClientRequest
        var completion: (Result<ClientResponse, FleetError>) -> Void
        var bytes: [UInt8] = []
        var queuedAt = 0.0
        var startedAt = 0.0
        var deadline = 0.0
        /// Already resent once after a stale keep-alive connection failed it.
        var resent = false
    }

    let fd: Int32
    let port: UInt16
    /// Outside the pool: made for one request (to another port) and closed after it.
    let oneShot: Bool
    private(set) var state: State = .connecting
    private(set) var exchange: Exchange?
    private var parser = HTTPResponseParser(keepBody: false)
    private var written = 0
    /// Requests completed on this connection.
    private(set) var served = 0
    /// When it last finished a request (idle connections older than a few seconds are not reused:
    /// the server may be closing them right now).
    private(set) var idleSince = 0.0

    /// Starts a non-blocking connect to 127.0.0.1:`port` carrying `exchange`.
    init(port: UInt16, exchange: Exchange, oneShot: Bool, now: Double) throws(FleetError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FleetError(.connectionRefused, "socket failed: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 && errno != EINPROGRESS {
            let error = Self.transportError(errno, what: "connect")
            Foundation.close(fd)
            throw error
        }
        self.fd = fd
        self.port = port
        self.oneShot = oneShot
        assign(exchange, now: now)
        if result == 0 { state = .busy }
    }

    deinit { if state != .closed { Foundation.close(fd) } }

    var pollEvents: Int16 {
        switch state {
        case .connecting: Int16(POLLOUT)
        case .busy: written < (exchange?.bytes.count ?? 0) ? Int16(POLLOUT | POLLIN) : Int16(POLLIN)
        case .idle: Int16(POLLIN)
        case .closed: 0
        }
    }

    /// Gives an idle (or connecting) connection its request.
    func assign(_ exchange: Exchange, now: Double) {
        self.exchange = exchange
        parser = HTTPResponseParser(keepBody: exchange.request.keepBody, headRequest: exchange.request.method == "HEAD")
        written = 0
        if state == .idle { state = .busy }
    }

    func isStale(now: Double, maxIdle: Double) -> Bool { state == .idle && now - idleSince > maxIdle }

    /// Whether a failure now may be a keep-alive connection the server closed before reading the
    /// request: then an idempotent request may be sent again on a fresh connection.
    var failedBeforeAnswer: Bool { served > 0 && !parser.receivedAny }

    /// Handles poll results. Returns the finished exchange and its result, if it finished.
    func handle(revents: Int16, scratch: UnsafeMutableBufferPointer<UInt8>, now: Double) -> (Exchange, Result<ClientResponse, FleetError>)? {
        do throws(FleetError) {
            switch state {
            case .connecting:
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                if error != 0 { throw Self.transportError(error, what: "connect") }
                state = .busy
                try write()
                if revents & Int16(POLLIN) != 0 { return try read(scratch, now: now) }
            case .busy:
                if revents & Int16(POLLOUT) != 0 { try write() }
                if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { return try read(scratch, now: now) }
            case .idle:
                // Readable while idle: the server closed it (or sent something unasked for).
                close()
            case .closed:
                break
            }
            return nil
        } catch {
            return fail(error)
        }
    }

    /// Fails the request in flight (timeout, shutdown) and closes.
    func fail(_ error: FleetError) -> (Exchange, Result<ClientResponse, FleetError>)? {
        let failed = exchange
        exchange = nil
        close()
        return failed.map { ($0, .failure(error)) }
    }

    func close() {
        guard state != .closed else { return }
        state = .closed
        Foundation.close(fd)
    }

    // MARK: I/O

    private func write() throws(FleetError) {
        guard let bytes = exchange?.bytes else { return }
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return send(fd, base + written, buffer.count - written, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                written += count
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                throw Self.transportError(errno, what: "send")
            }
        }
    }

    private func read(_ scratch: UnsafeMutableBufferPointer<UInt8>, now: Double) throws(FleetError) -> (Exchange, Result<ClientResponse, FleetError>)? {
        while true {
            let count = recv(fd, scratch.baseAddress, scratch.count, 0)
            if count > 0 {
                let used: Int
                do throws(HTTPResponseParser.Failure) {
                    used = try parser.consume(UnsafeBufferPointer(rebasing: scratch[0..<count]))
                } catch {
                    throw Self.fleetError(error)
                }
                if parser.isComplete { return finish(clean: used == count, now: now) }
            } else if count == 0 {
                do throws(HTTPResponseParser.Failure) { try parser.endOfStream() } catch { throw Self.fleetError(error) }
                return finish(clean: false, now: now)
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return nil
            } else if errno != EINTR {
                throw Self.transportError(errno, what: "recv")
            }
        }
    }

    private func finish(clean: Bool, now: Double) -> (Exchange, Result<ClientResponse, FleetError>)? {
        guard let done = exchange else { return nil }
        exchange = nil
        served += 1
        let response = ClientResponse(parsed: parser.result, latency: now - done.startedAt, queueWait: done.startedAt - done.queuedAt)
        if parser.closeAfter || !clean || oneShot {
            close()
        } else {
            state = .idle
            idleSince = now
        }
        return (done, .success(response))
    }

    /// The parser's refusal as the fleet counts it.
    static func fleetError(_ failure: HTTPResponseParser.Failure) -> FleetError {
        FleetError(failure.code == .connectionClosed ? .connectionClosed : .protocolError, failure.message)
    }

    static func transportError(_ number: Int32, what: String) -> FleetError {
        let text = "\(what): \(String(cString: strerror(number)))"
        switch number {
        case ECONNREFUSED: return FleetError(.connectionRefused, text)
        case ECONNRESET, EPIPE: return FleetError(.connectionReset, text)
        case ETIMEDOUT: return FleetError(.timeout, text)
        default: return FleetError(.connectionClosed, text)
        }
    }
}
