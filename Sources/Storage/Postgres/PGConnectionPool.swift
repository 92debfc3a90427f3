// A fixed-size pool of libpq connections.
//
// Threading: `withConnection` blocks the calling thread (an HTTP engine thread or a dedicated
// thread, never the cooperative pool) until a connection is free, then lends it to that thread
// alone for the duration of the closure. Connections are opened lazily, up to `size`.
//
// Reconnection: a connection that reports CONNECTION_BAD after a call is discarded and the pool's
// generation is bumped, so every idle connection opened before the failure is reset (`PQreset`)
// before its next use. During an outage calls fail fast with `.unavailable`; once the server is
// back the next checkouts reconnect, without restarting the process.

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
    }

    let settings: Settings
    private let permits: DispatchSemaphore
    private let state = Mutex(State())

    init(settings: Settings) {
        self.settings = settings
        permits = DispatchSemaphore(value: max(settings.size, 1))
    }

    func withConnection<T>(_ body: (PGConnection) throws -> T) throws -> T {
        let waitNanoseconds = Int(settings.acquireTimeout.components.seconds) * 1_000_000_000
            + Int(settings.acquireTimeout.components.attoseconds / 1_000_000_000)
        guard permits.wait(timeout: .now() + .nanoseconds(waitNanoseconds)) == .success else {
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
                candidate.generation = generation
                settings.logger?.notice("database connection re-established")
                return candidate
            } catch {
                invalidate()
                throw error
            }
        }
        return try PGConnection(
            url: settings.url,
            statementTimeoutMilliseconds: settings.statementTimeoutMilliseconds,
            generation: generation
        )
    }

    private func checkin(_ connection: PGConnection) {
        if connection.isConnected && !connection.isIdle {
            // A body left a transaction open (it should not): roll it back rather than leak it.
            try? connection.executeScript("ROLLBACK")
        }
        guard connection.isConnected && connection.isIdle else {
            invalidate()
            return
        }
        state.withLock { state in
            if !state.closed && connection.generation == state.generation { state.idle.append(connection) }
        }
    }

    /// Marks every idle connection as suspect after one was found broken.
    private func invalidate() {
        let generation = state.withLock { state -> Int in
            state.generation += 1
            return state.generation
        }
        settings.logger?.warning("database connection lost; idle connections will reconnect", ["db.pool.generation": String(generation)])
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
