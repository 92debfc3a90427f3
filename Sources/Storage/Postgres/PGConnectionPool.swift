// A fixed-size pool of libpq connections.
//
// Threading: `withConnection` blocks the calling thread (an HTTP engine thread or a dedicated
// thread, never the cooperative pool) until a connection is free, then lends it to that thread
// alone for the duration of the closure. Connections are opened lazily, up to `size`.
//
// Reconnection: a connection that reports CONNECTION_BAD after a call (the server shut down or
// restarted, the socket was reset mid-transaction, COMMIT could not be sent) is discarded, never
// lent again, and the pool's generation is bumped, so every idle connection opened before the
// failure is reset (`PQreset`) before its next use. During an outage calls fail fast with
// `.unavailable`; once the server is back the next checkouts reconnect, without restarting the
// process. The outage is logged once when it begins and once when it ends, not per call.

import Dispatch
import Foundation
import Logging
import Synchronization

final class PGConnectionPool: Sendable {
    struct Settings: Sendable {
        var url: String
        var size: Int
        var statementTimeoutMilliseconds: Int
        var acquireTimeout: Duration
        var logger: Logger?
    }

    private struct State {
        var idle: [PGConnection] = []
        var generation = 0
        var closed = false
        /// What the last connection attempt or call said about the server (for logging changes).
        var reachable = true
    }

    let settings: Settings
    private let permits: DispatchSemaphore
    private let state = Mutex(State())

    init(settings: Settings) {
        self.settings = settings
        permits = DispatchSemaphore(value: max(settings.size, 1))
    }

    func withConnection<T>(_ body: (PGConnection) throws -> T) throws -> T {
        guard permits.wait(timeout: .now() + settings.acquireTimeout.dispatchInterval) == .success else {
            throw StorageError(.timeout, "no PostgreSQL connection became free in time (pool size \(settings.size))")
        }
        defer { permits.signal() }
        let connection = try checkout()
        do {
            let result = try body(connection)
            checkin(connection)
            return result
        } catch {
            checkin(connection)
            throw error
        }
    }

    private func checkout() throws -> PGConnection {
        let (candidate, generation, closed) = state.withLock { state -> (PGConnection?, Int, Bool) in
            (state.idle.popLast(), state.generation, state.closed)
        }
        if closed { throw StorageError(.unavailable, "the store is closed") }
        if let candidate {
            if candidate.generation == generation && candidate.probe() { return candidate }
            do {
                try candidate.reset()
            } catch {
                // The server is still away: drop this connection, suspect the others.
                invalidate(error)
                throw error
            }
            candidate.generation = generation
            reachable()
            return candidate
        }
        let connection: PGConnection
        do {
            connection = try PGConnection(
                url: settings.url,
                statementTimeoutMilliseconds: settings.statementTimeoutMilliseconds,
                generation: generation
            )
        } catch {
            unreachable(error)
            throw error
        }
        reachable()
        return connection
    }

    private func checkin(_ connection: PGConnection) {
        if connection.isConnected && !connection.isIdle {
            // A body left a transaction open (it should not): roll it back rather than leak it.
            try? connection.executeScript("ROLLBACK")
        }
        guard connection.isConnected && connection.isIdle else {
            // Broken (or stuck in a transaction): released here, never lent again.
            invalidate(StorageError(.unavailable, "PostgreSQL connection lost"))
            return
        }
        state.withLock { state in
            if !state.closed && connection.generation == state.generation { state.idle.append(connection) }
        }
    }

    /// A connection in use broke: every idle connection opened before now is suspect.
    private func invalidate(_ error: any Error) {
        state.withLock { $0.generation += 1 }
        unreachable(error)
    }

    /// Logs the start of an outage once.
    private func unreachable(_ error: any Error) {
        let changed = state.withLock { state in
            defer { state.reachable = false }
            return state.reachable
        }
        guard changed else { return }
        settings.logger?.warning(
            "database connection lost; calls fail with unavailable until it returns",
            ["error": (error as? StorageError)?.reason ?? (error as? PGError)?.message ?? "\(error)"]
        )
    }

    /// Logs the end of an outage once.
    private func reachable() {
        let changed = state.withLock { state in
            defer { state.reachable = true }
            return !state.reachable
        }
        guard changed else { return }
        settings.logger?.notice("database connection re-established")
    }

    /// Closes idle connections; later calls fail with `.unavailable`. Connections in use are
    /// closed when their borrowers return them.
    func close() {
        let idle = state.withLock { state -> [PGConnection] in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        // Released here, outside the lock: each deinit sends a Terminate message to the server.
        withExtendedLifetime(idle) {}
    }
}
