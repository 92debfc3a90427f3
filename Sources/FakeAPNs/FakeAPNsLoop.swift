// The fake's thread (threading model: see FakeAPNs.swift): accepts, handshakes, answers, obeys commands.

import APNs
import Foundation
import Logging
import SystemSupport

final class FakeAPNsLoop: @unchecked Sendable {
    // Safe because: created before the fake's thread starts and then used only by that thread.

    struct Delayed {
        var due: Double
        var connection: Int
        var stream: Int32
        var token: String
        var answer: FakeAPNs.Answer
    }

    let configuration: FakeAPNs.Configuration
    let tls: TLSContext
    var listener: Int32
    let shared: FakeAPNsShared
    let wake: WakePipe
    let logger: Logger
    var connections: [Int: FakeAPNsConnection] = [:]
    var nextConnectionID = 1
    var maxConcurrentStreams: UInt32
    var raised = false
    var delayed: [Delayed] = []

    init(configuration: FakeAPNs.Configuration, tls: TLSContext, listener: Int32, shared: FakeAPNsShared, wake: WakePipe, logger: Logger) {
        self.configuration = configuration
        self.tls = tls
        self.listener = listener
        self.shared = shared
        self.wake = wake
        self.logger = logger
        self.maxConcurrentStreams = shared.initialMaxConcurrentStreams
    }

    func run() {
        // A write to a client that reset its connection must fail with EPIPE, not kill the process.
        blockSIGPIPE()
        var fds: [pollfd] = []
        var polled: [FakeAPNsConnection] = []
        while true {
            let now = monotonicSeconds()
            guard obeyCommands() else { break }
            answerDue(now: now)
            for connection in Array(connections.values) { settle(connection, now: now) }

            fds.removeAll(keepingCapacity: true)
            polled.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
            for connection in connections.values where connection.fd >= 0 {
                fds.append(pollfd(fd: connection.fd, events: connection.pollEvents, revents: 0))
                polled.append(connection)
            }
            var timeout: Int32 = 500
            if let next = delayed.map(\.due).min() { timeout = min(timeout, Int32(max(0, (next - now) * 1000).rounded(.up))) }
            _ = poll(&fds, nfds_t(fds.count), timeout)
            if fds[0].revents != 0 { wake.drain() }
            if listener >= 0, fds[1].revents != 0 { acceptAll() }
            let after = monotonicSeconds()
            for (index, connection) in polled.enumerated() where fds[index + 2].revents != 0 && connection.state != .closed {
                handle(connection, now: after)
            }
        }
        for connection in connections.values { connection.close() }
        connections.removeAll()
        if listener >= 0 { close(listener) }
    }

    private func handle(_ connection: FakeAPNsConnection, now: Double) {
        switch connection.state {
        case .handshaking:
            if !connection.handshake(maxConcurrentStreams: maxConcurrentStreams) { remove(connection) }
            if connection.state == .closing {
                logger.debug("fake-apns handshake refused", ["connection": String(connection.id)])
            }
        case .open:
            do throws(FakeAPNsError) {
                try connection.readAvailable()
                countPings(connection)
                answerCompleted(connection, now: now)
                try connection.flush()
            } catch {
                remove(connection)
            }
        case .closing:
            if (try? connection.readAvailable()) == nil { remove(connection) }
        case .closed:
            remove(connection)
        }
    }

    /// Flushes, and closes connections that finished after GOAWAY or lingered too long.
    private func settle(_ connection: FakeAPNsConnection, now: Double) {
        switch connection.state {
        case .open:
            if (try? connection.flush()) == nil { remove(connection); return }
            if connection.isDrained { connection.beginClosing(now: now) }
        case .closing:
            if now > connection.closingDeadline { remove(connection) }
        case .handshaking:
            break
        case .closed:
            remove(connection)
        }
    }

    /// Moves the PINGs `connection` received into the shared count.
    private func countPings(_ connection: FakeAPNsConnection) {
        guard connection.pingsReceived > 0 else { return }
        let received = connection.pingsReceived
        connection.pingsReceived = 0
        shared.state.withLock { $0.pingsReceived += received }
    }

    private func remove(_ connection: FakeAPNsConnection) {
        connection.close()
        connections[connection.id] = nil
    }

    private func acceptAll() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let id = nextConnectionID
            nextConnectionID += 1
            guard let connection = try? FakeAPNsConnection(id: id, fd: fd, tls: tls, goAwayAfter: configuration.goAwayAfter) else {
                close(fd)
                continue
            }
            connections[id] = connection
            shared.state.withLock { $0.connectionsAccepted += 1 }
        }
    }

    /// Runs queued commands and acknowledges them; false when the fake is stopping.
    private func obeyCommands() -> Bool {
        let (commands, stopped) = shared.state.withLock { state in
            let taken = state.commands
            state.commands.removeAll()
            return (taken, state.stopped)
        }
        for (command, done) in commands {
            switch command {
            case .setMaxConcurrentStreams(let limit):
                maxConcurrentStreams = limit
                for connection in connections.values where connection.state == .open {
                    connection.sendSettings(maxConcurrentStreams: limit)
                }
            case .dropConnections:
                for connection in connections.values { connection.close() }
                connections.removeAll()
                delayed.removeAll()
            case .stopListening:
                if listener >= 0 { close(listener) }
                listener = -1
            case .startListening(let fd):
                if listener >= 0 { close(listener) }
                listener = fd
            }
            done.signal()
        }
        if stopped {
            // Commands queued after the stop flag was set are released unanswered.
            shared.state.withLock { state in
                for (_, done) in state.commands { done.signal() }
                state.commands.removeAll()
            }
        }
        return !stopped
    }
}
