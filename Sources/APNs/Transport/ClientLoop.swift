// The I/O thread of APNSClient (threading model: see APNSClient.swift). Everything here runs on
// that one thread; only `shared` (a Mutex) and `wake` are touched by other threads.

import Foundation
import Logging
import SystemSupport

final class ClientLoop: @unchecked Sendable {
    // Safe because: created before the I/O thread starts and from then on used only by that thread.

    struct LivePush {
        var request: APNSRequest
        var complete: @Sendable (Result<APNSResponse, any Error>) -> Void
        var connection: Int?
        var stream: Int32?
    }

    let configuration: APNSConfiguration
    let endpoint: APNSEndpoint
    let tls: TLSContext
    let shared: SharedInbox
    let wake: WakePipe
    let logger: Logger
    var scheduler: PushScheduler
    var pushes: [UInt64: LivePush] = [:]
    var connections: [Int: H2ClientConnection] = [:]
    var streamRequests: [Int: [Int32: UInt64]] = [:]
    /// (deadline, request) in enqueue order; every request has the same timeout, so it stays sorted.
    var deadlines: [(Double, UInt64)] = []
    var deadlineHead = 0
    var shutdownDeadline: Double?
    var addresses: [SocketAddress] = []
    var attempts = 0

    init(configuration: APNSConfiguration, endpoint: APNSEndpoint, tls: TLSContext, shared: SharedInbox, wake: WakePipe, logger: Logger) {
        self.configuration = configuration
        self.endpoint = endpoint
        self.tls = tls
        self.shared = shared
        self.wake = wake
        self.logger = logger
        self.scheduler = PushScheduler(targetConnections: configuration.connections)
    }

    func run() {
        blockSIGPIPE()
        var fds: [pollfd] = []
        var polled: [H2ClientConnection] = []
        while true {
            let now = monotonicSeconds()
            intake(now: now)
            if let deadline = shutdownDeadline, scheduler.inFlightCount == 0 || now >= deadline { break }
            expire(now: now)
            openConnections(now: now)
            submitQueued()
            checkHealth(now: now)
            for connection in Array(connections.values) where connection.state == .open {
                do throws(APNSError) { try connection.flush() } catch { connectionDown(connection, error: error, now: now) }
            }
            publishStats()

            fds.removeAll(keepingCapacity: true)
            polled.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0))
            for connection in connections.values where connection.fd >= 0 {
                fds.append(pollfd(fd: connection.fd, events: connection.pollEvents, revents: 0))
                polled.append(connection)
            }
            _ = poll(&fds, nfds_t(fds.count), pollTimeout(now: now))
            if fds[0].revents != 0 { wake.drain() }
            let after = monotonicSeconds()
            for (index, connection) in polled.enumerated() where fds[index + 1].revents != 0 {
                guard connection.state != .closed else { continue }
                do throws(APNSError) {
                    let wasOpen = connection.state == .open
                    try connection.handle(revents: fds[index + 1].revents, tls: tls)
                    if !wasOpen && connection.state == .open { scheduler.connectionEstablished(connection.id) }
                    if fds[index + 1].revents & Int16(POLLIN) != 0 { connection.lastActivity = after }
                    processEvents(connection, now: after)
                } catch {
                    processEvents(connection, now: after)
                    connectionDown(connection, error: error, now: after)
                }
            }
            publishStats()
        }
        finish()
    }

    /// Takes new pushes from callers; starts the shutdown when asked.
    private func intake(now: Double) {
        let (incoming, cancelled, shutdownRequested) = shared.state.withLock { inbox in
            let taken = inbox.incoming
            inbox.incoming.removeAll()
            var cancelled: [UInt64] = []
            // A cancellation can overtake its push by a moment: keep it for a few passes. One for
            // a push that was already answered simply ages out (cancellation is best effort).
            var kept: [(id: UInt64, passes: Int)] = []
            for entry in inbox.cancelled {
                if pushes[entry.id] != nil || taken.contains(where: { $0.id == entry.id }) {
                    cancelled.append(entry.id)
                } else if entry.passes < 3 {
                    kept.append((entry.id, entry.passes + 1))
                }
            }
            inbox.cancelled = kept
            if inbox.shutdownRequested { inbox.closed = true }
            return (taken, cancelled, inbox.shutdownRequested)
        }
        defer { for id in cancelled { abandon(id, APNSError.cancelled) } }
        if shutdownRequested {
            let error = APNSError(code: .shutdown, message: "APNs client is shutting down")
            for push in incoming { push.complete(.failure(error)) }
            if shutdownDeadline == nil {
                shutdownDeadline = now + max(0, configuration.shutdownGracePeriod)
                for id in scheduler.drainQueue() { fail(id, error) }
            }
            return
        }
        for push in incoming {
            let id = push.id
            pushes[id] = LivePush(request: push.request, complete: push.complete)
            scheduler.enqueue(id)
            deadlines.append((now + configuration.requestTimeout, id))
        }
    }

    private func expire(now: Double) {
        while deadlineHead < deadlines.count, deadlines[deadlineHead].0 <= now {
            let id = deadlines[deadlineHead].1
            deadlineHead += 1
            abandon(id, APNSError(code: .timeout, message: "no answer from APNs within \(configuration.requestTimeout)s"))
        }
        if deadlineHead > 4096, deadlineHead * 2 > deadlines.count {
            deadlines.removeFirst(deadlineHead)
            deadlineHead = 0
        }
    }

    private func publishStats() {
        var stats = APNSClientStats()
        stats.connectionsOpen = connections.values.filter { $0.state == .open }.count
        stats.streamsInFlight = scheduler.inFlightCount
        stats.queued = scheduler.queuedCount
        shared.state.withLock { $0.stats = stats }
    }

    private func pollTimeout(now: Double) -> Int32 {
        var wait = 1.0
        if deadlineHead < deadlines.count { wait = min(wait, deadlines[deadlineHead].0 - now) }
        // Only a future attempt matters: a due one was started (or was not needed) this pass.
        if scheduler.queuedCount > 0, scheduler.nextConnectAttempt > now { wait = min(wait, scheduler.nextConnectAttempt - now) }
        for connection in connections.values where connection.state == .tcpConnecting || connection.state == .handshaking {
            wait = min(wait, connection.connectDeadline - now)
        }
        if let shutdownDeadline { wait = min(wait, shutdownDeadline - now) }
        return Int32(max(0, (wait * 1000).rounded(.up)))
    }

    private func finish() {
        let error = APNSError(code: .shutdown, message: "APNs client shut down before an answer arrived")
        for id in Array(pushes.keys) { fail(id, error) }
        for connection in connections.values { connection.close() }
        connections.removeAll()
        shared.state.withLock { inbox in
            inbox.closed = true
            inbox.stats = APNSClientStats()
            let late = inbox.incoming
            inbox.incoming.removeAll()
            for push in late { push.complete(.failure(error)) }
        }
    }

    /// Gives up on a push wherever it is (timeout, cancellation): dequeues it or resets its stream.
    func abandon(_ id: UInt64, _ error: any Error) {
        guard let push = pushes.removeValue(forKey: id) else { return }
        if case .inFlight(let connectionID) = scheduler.cancel(id), let stream = push.stream {
            streamRequests[connectionID]?[stream] = nil
            connections[connectionID]?.reset(stream: stream)
        }
        push.complete(.failure(error))
    }

    func complete(_ id: UInt64, _ response: APNSResponse) {
        guard let push = pushes.removeValue(forKey: id) else { return }
        push.complete(.success(response))
    }

    func fail(_ id: UInt64, _ error: APNSError) {
        guard let push = pushes.removeValue(forKey: id) else { return }
        push.complete(.failure(error))
    }
}
