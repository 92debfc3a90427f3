// Connection lifecycle and stream events for ClientLoop (I/O thread only).

import Foundation
import Logging

extension ClientLoop {
    func openConnections(now: Double) {
        for id in scheduler.connectionsToOpen(now: now) {
            do throws(APNSError) {
                if addresses.isEmpty { addresses = try SocketAddress.resolve(host: endpoint.host, port: endpoint.port) }
                guard !addresses.isEmpty else {
                    throw APNSError(code: .connectionFailed, message: "\(endpoint.host) has no IPv4/IPv6 address")
                }
                let address = addresses[attempts % addresses.count]
                attempts += 1
                let connection = try H2ClientConnection(
                    id: id, address: address, host: endpoint.host, port: endpoint.port,
                    now: now, connectTimeout: configuration.connectTimeout
                )
                connections[id] = connection
                streamRequests[id] = [:]
                logger.debug("APNs connecting", ["apns.connection": String(id), "apns.host": endpoint.host])
            } catch {
                addresses = []
                failConnection(id, error: error, now: now)
            }
        }
    }

    func submitQueued() {
        let expiration = Int64(Date().timeIntervalSince1970) + configuration.expiration.components.seconds
        let pushHeaders = configuration.pushHeaders
        for (id, connectionID) in scheduler.submissions() {
            guard let push = pushes[id], let connection = connections[connectionID] else {
                _ = scheduler.cancel(id)
                continue
            }
            do throws(APNSError) {
                let stream = try connection.submit(
                    path: "/3/device/" + push.request.pushToken.rawValue, topic: push.request.topic.rawValue, expiration: expiration,
                    pushHeaders: pushHeaders
                )
                pushes[id]?.connection = connectionID
                pushes[id]?.stream = stream
                streamRequests[connectionID]?[stream] = id
            } catch {
                // nghttp2 would not take another stream here (e.g. stream ids exhausted): move on.
                scheduler.goAway(connectionID)
                scheduler.streamRefused(id, on: connectionID)
            }
        }
    }

    /// Connect timeouts, unanswered PINGs, PINGs on idle connections, finished draining connections.
    func checkHealth(now: Double) {
        for connection in Array(connections.values) {
            switch connection.state {
            case .tcpConnecting, .handshaking:
                if now > connection.connectDeadline {
                    connectionDown(connection, error: APNSError(code: .connectionFailed, message: "connect timed out"), now: now)
                }
            case .open:
                if let sent = connection.pingSentAt, now - sent > max(5, min(configuration.requestTimeout, configuration.idlePingInterval)) {
                    connectionDown(connection, error: APNSError(code: .connectionLost, message: "PING unanswered"), now: now)
                } else if connection.pingSentAt == nil, now - connection.lastActivity >= configuration.idlePingInterval {
                    connection.ping(now: now)
                    connection.lastActivity = now
                } else if scheduler.isFinished(connection.id) {
                    logger.debug("APNs connection drained", ["apns.connection": String(connection.id)])
                    connectionDown(connection, error: APNSError(code: .connectionLost, message: "drained"), now: now, drained: true)
                }
            case .closed:
                connectionDown(connection, error: APNSError(code: .connectionLost, message: "closed"), now: now)
            }
        }
    }

    func processEvents(_ connection: H2ClientConnection, now: Double) {
        let events = connection.events
        connection.events.removeAll()
        for event in events {
            switch event {
            case .settings(let limit):
                scheduler.remoteSettings(connection.id, maxConcurrentStreams: limit)
            case .goAway:
                logger.info("APNs GOAWAY received", ["apns.connection": String(connection.id)])
                scheduler.goAway(connection.id)
            case .response(let stream, let status, let apnsID, let body):
                guard let id = takeRequest(connection.id, stream) else { continue }
                scheduler.streamAnswered(id, on: connection.id)
                complete(id, APNSResponse(status: status, apnsID: apnsID, body: body))
            case .refused(let stream):
                guard let id = takeRequest(connection.id, stream) else { continue }
                pushes[id]?.connection = nil
                pushes[id]?.stream = nil
                scheduler.streamRefused(id, on: connection.id)
            case .reset(let stream, let code):
                guard let id = takeRequest(connection.id, stream) else { continue }
                scheduler.streamAnswered(id, on: connection.id)
                fail(id, APNSError(code: .connectionLost, message: "stream reset by APNs (HTTP/2 error \(code))"))
            }
        }
    }

    private func takeRequest(_ connectionID: Int, _ stream: Int32) -> UInt64? {
        streamRequests[connectionID]?.removeValue(forKey: stream)
    }

    /// Closes a connection and settles its requests: before the server's SETTINGS it counts as a
    /// failed attempt (backoff; its error goes to the callers), afterwards its in-flight pushes
    /// fail as retryable `connectionLost` (they may have reached APNs, so they are not resent blindly).
    /// A connection closed because it `drained` (GOAWAY, every stream answered) is routine and
    /// logged only if it still lost requests.
    func connectionDown(_ connection: H2ClientConnection, error: APNSError, now: Double, drained: Bool = false) {
        let accepted = connection.receivedSettings
        connection.close()
        connections[connection.id] = nil
        streamRequests[connection.id] = nil
        if accepted {
            let lost = scheduler.connectionClosed(connection.id)
            if !lost.isEmpty || !drained {
                logger.info("APNs connection closed", ["apns.connection": String(connection.id), "apns.error": error.message])
            }
            let lostError = APNSError(code: .connectionLost, message: "connection to APNs lost: \(error.message)")
            for id in lost { fail(id, lostError) }
        } else {
            failConnection(connection.id, error: error, now: now)
        }
    }

    private func failConnection(_ id: Int, error: APNSError, now: Double) {
        logger.warning("APNs connection failed", ["apns.connection": String(id), "apns.error": error.message])
        let (inFlight, queued) = scheduler.connectionFailed(id, now: now, jitter: Double.random(in: 0...1))
        for request in inFlight + queued { fail(request, error) }
    }
}
