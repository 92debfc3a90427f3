// APNSClient: the public face of the push client.
//
// Threading model: every socket, SSL object and nghttp2 session belongs to ONE dedicated I/O thread
// (`ClientLoop.run`, a poll() loop over non-blocking sockets plus a wake-up pipe). Callers never
// touch them: `submit` appends `PendingPush`es (request + completion) to the Mutex-protected
// `Inbox` and writes one byte to the wake pipe when the inbox was empty. The I/O thread drains the
// inbox, schedules requests onto HTTP/2 streams (`PushScheduler`, a pure value type), and calls
// each completion exactly once, on the I/O thread: a caller with a thread of its own (the push
// dispatcher) collects the answers there in a queue and never needs Swift concurrency. The async
// `send` is built on `submit` with a continuation. DNS resolution (getaddrinfo) also runs on the
// I/O thread, never on Swift's cooperative pool.

import Foundation
public import Logging
import Synchronization
import SystemSupport

/// A point-in-time view of the client's connections and streams.
public struct APNSClientStats: Sendable, Equatable {
    /// Connections with a completed handshake (including draining ones).
    public var connectionsOpen = 0
    /// Streams sent and not yet answered.
    public var streamsInFlight = 0
    /// Requests waiting for a free stream or a connection.
    public var queued = 0
    public init() {}
}

/// An HTTP/2 client for APNs pass-update pushes, authenticating with a TLS client certificate.
public final class APNSClient: Sendable {
    let configuration: APNSConfiguration
    let endpoint: APNSEndpoint
    let shared: SharedInbox
    let wake: WakePipe
    private let thread: IOThread
    let logger: Logger

    /// Parses the identity and builds the TLS context once; connections open lazily on the first push.
    public init(configuration: APNSConfiguration, logger: Logger) throws {
        self.configuration = configuration
        self.endpoint = try APNSEndpoint(url: configuration.url)
        self.logger = logger
        let tls = try TLSContext(configuration: configuration)
        do throws(SystemCallError) { self.wake = try WakePipe() } catch { throw APNSError(code: .invalidConfiguration, message: error.description) }
        self.shared = SharedInbox()
        let loop = ClientLoop(configuration: configuration, endpoint: endpoint, tls: tls, shared: shared, wake: wake, logger: logger)
        self.thread = IOThread(name: "apns-io") { loop.run() }
    }

    deinit {
        // A client dropped without shutdown() must not leave its thread polling forever.
        shared.state.withLock { $0.shutdownRequested = true }
        wake.signal()
    }

    /// What becomes of one submitted push: APNs's answer (any HTTP status), or the transport
    /// problem (connection, TLS, timeout, shutdown).
    public typealias Completion = @Sendable (Result<APNSResponse, APNSError>) -> Void

    /// Hands pushes to the I/O thread without waiting. Each completion runs exactly once: on the
    /// I/O thread when APNs answers or the push fails, or on the calling thread at once when the
    /// client is shut down. Keep completions short (append to a queue): they run on the thread
    /// that serves every connection.
    public func submit(_ pushes: [(request: APNSRequest, completion: Completion)]) {
        var accepted: [PendingPush] = []
        accepted.reserveCapacity(pushes.count)
        for push in pushes {
            let completion = push.completion
            accepted.append(PendingPush(id: 0, request: push.request) { result in
                completion(result.mapError { $0 as? APNSError ?? APNSError(code: .shutdown, message: "\($0)") })
            })
        }
        enqueue(accepted)
    }

    /// Sends one push and waits for APNs' answer. Any HTTP status is returned as a response;
    /// transport problems (connection, TLS, timeout, shutdown) throw `APNSError`. Cancelling the
    /// calling task abandons the push (its stream is reset) and throws `CancellationError`.
    public func send(_ request: APNSRequest) async throws -> APNSResponse {
        let id = shared.state.withLock { inbox -> UInt64 in
            defer { inbox.nextRequestID += 1 }
            return inbox.nextRequestID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                enqueue([PendingPush(id: id, request: request) { continuation.resume(with: $0) }])
            }
        } onCancel: {
            shared.state.withLock { $0.cancelled.append((id, 0)) }
            wake.signal()
        }
    }

    /// Appends pushes to the inbox. Pushes without an id get one here. Only the call that makes
    /// the inbox non-empty wakes the I/O thread: it takes the whole inbox at once, so one write to
    /// the pipe per batch is enough.
    private func enqueue(_ pushes: [PendingPush]) {
        guard !pushes.isEmpty else { return }
        let outcome = shared.state.withLock { inbox -> (accepted: Bool, wake: Bool) in
            guard !inbox.closed else { return (false, false) }
            let wasEmpty = inbox.incoming.isEmpty
            for var push in pushes {
                if push.id == 0 {
                    push.id = inbox.nextRequestID
                    inbox.nextRequestID += 1
                }
                inbox.incoming.append(push)
            }
            return (true, wasEmpty)
        }
        if !outcome.accepted {
            let error = APNSError(code: .shutdown, message: "APNs client is shut down")
            for push in pushes { push.complete(.failure(error)) }
        } else if outcome.wake {
            wake.signal()
        }
    }

    /// Stops accepting pushes, lets in-flight streams finish (at most a few seconds), closes the
    /// connections and waits for the I/O thread to exit. Unanswered requests fail with `.shutdown`.
    public func shutdown() {
        let first = shared.state.withLock { inbox -> Bool in
            defer { inbox.shutdownRequested = true }
            return !inbox.shutdownRequested
        }
        wake.signal()
        guard first else { return }
        thread.waitUntilFinished(timeout: .milliseconds(Int(max(0, configuration.shutdownGracePeriod) * 1000) + 5000))
    }

    /// Connections and streams right now.
    public var stats: APNSClientStats { shared.state.withLock { $0.stats } }
}

/// A push handed from a caller to the I/O thread, with what to call when it is settled.
struct PendingPush: Sendable {
    var id: UInt64
    var request: APNSRequest
    /// Called exactly once (the async `send` resumes its continuation; `submit` calls the caller's completion).
    var complete: @Sendable (Result<APNSResponse, any Error>) -> Void
}

/// The Mutex both callers and the I/O thread hold a reference to.
final class SharedInbox: Sendable {
    let state = Mutex(Inbox())
}

/// What callers and the I/O thread share, under the client's Mutex.
struct Inbox: Sendable {
    var incoming: [PendingPush] = []
    /// Requests whose calling task was cancelled (possibly before they reached `incoming`).
    var cancelled: [(id: UInt64, passes: Int)] = []
    var nextRequestID: UInt64 = 1
    var shutdownRequested = false
    /// Set by the I/O thread when it has failed everything and stops: no more pushes accepted.
    var closed = false
    var stats = APNSClientStats()
}
