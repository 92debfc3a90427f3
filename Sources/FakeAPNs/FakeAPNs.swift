// FakeAPNs: an HTTP/2 TLS server that behaves like APNs for pass-update pushes, for tests and
// benchmarks (also runnable as the `fake-apns` executable).
//
// Threading model: one dedicated thread (`FakeAPNsLoop.run`) owns the listening socket, every
// connection's socket, SSL object and nghttp2 session, in a poll() loop with a wake-up pipe. Tests
// talk to it through `FakeAPNsShared` (a Mutex): scripts and recorded pushes are read and written
// there, and control commands (drop connections, stop/start listening, change the stream limit,
// shut down) are queued there and acknowledged by the loop before the calling method returns.

import APNs
import Foundation
public import Logging
import Synchronization
import SystemSupport

/// A scriptable fake of Apple's push service (HTTP/2 over TLS, client certificate required by default).
public final class FakeAPNs: Sendable {
    /// The configuration it was started with.
    public let configuration: Configuration
    /// The port it listens on (127.0.0.1).
    public let port: UInt16
    let shared: FakeAPNsShared
    let wake: WakePipe
    private let thread: IOThread

    /// Binds 127.0.0.1 (`configuration.port`, 0 = any free port) and starts serving on its own thread.
    public init(configuration: Configuration, logger: Logger = Logger(label: "fake-apns", level: .warning)) throws {
        self.configuration = configuration
        let tls: TLSContext
        do throws(APNSError) {
            tls = try TLSContext.server(
                certificateChainFile: configuration.certificatePath, privateKeyFile: configuration.privateKeyPath,
                clientCAFile: configuration.clientCAPath
            )
        } catch {
            throw FakeAPNsError(error.message)
        }
        let (listener, port) = try FakeAPNsListener.bind(port: configuration.port)
        self.port = port
        do throws(SystemCallError) { self.wake = try WakePipe() } catch { throw FakeAPNsError(error.description) }
        self.shared = FakeAPNsShared(maxConcurrentStreams: configuration.maxConcurrentStreams)
        let loop = FakeAPNsLoop(configuration: configuration, tls: tls, listener: listener, shared: shared, wake: wake, logger: logger)
        self.thread = IOThread(name: "fake-apns") { loop.run() }
    }

    deinit { shutdown() }

    /// `https://127.0.0.1:<port>`.
    public var url: String { "https://127.0.0.1:\(port)" }

    /// Answers the next pushes to `token` with `answers`, in order; afterwards the default answer.
    public func script(token: String, _ answers: [Answer]) {
        shared.state.withLock { $0.scripts[token, default: []].append(contentsOf: answers) }
    }

    /// Every request received so far, in arrival order.
    public var pushes: [Push] { shared.state.withLock { $0.pushes } }

    /// How many requests for `token` were answered with `status`.
    public func count(token: String, status: Int = 200) -> Int {
        shared.state.withLock { $0.pushes.reduce(0) { $0 + ($1.token == token && $1.status == status ? 1 : 0) } }
    }

    /// Connections accepted so far.
    public var connectionsAccepted: Int { shared.state.withLock { $0.connectionsAccepted } }

    /// PING frames received from clients so far (acknowledgements of the fake's own PINGs not counted).
    public var pingsReceived: Int { shared.state.withLock { $0.pingsReceived } }

    /// Forgets recorded pushes (keeps scripts).
    public func clearPushes() { shared.state.withLock { $0.pushes.removeAll() } }

    /// Advertises a new SETTINGS_MAX_CONCURRENT_STREAMS to every open connection and future ones.
    public func setMaxConcurrentStreams(_ limit: UInt32) { run(.setMaxConcurrentStreams(limit)) }

    /// Closes every connection abruptly (no GOAWAY), like a network failure.
    public func dropConnections() { run(.dropConnections) }

    /// Stops accepting connections (the port refuses connects); open connections stay.
    public func stopListening() { run(.stopListening) }

    /// Listens again on the same port.
    public func startListening() throws {
        let (listener, _) = try FakeAPNsListener.bind(port: port)
        run(.startListening(listener))
    }

    /// Closes everything and stops the thread; idempotent.
    public func shutdown() {
        let first = shared.state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        wake.signal()
        thread.waitUntilFinished(timeout: .seconds(10))
    }

    private func run(_ command: FakeAPNsShared.Command) {
        let done = DispatchSemaphore(value: 0)
        let queued = shared.state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.commands.append((command, done))
            return true
        }
        guard queued else { return }
        wake.signal()
        done.wait()
    }
}

/// State shared between the fake's thread and test code.
final class FakeAPNsShared: Sendable {
    enum Command: Sendable {
        case setMaxConcurrentStreams(UInt32)
        case dropConnections
        case stopListening
        case startListening(Int32)
    }

    struct State: Sendable {
        var scripts: [String: [FakeAPNs.Answer]] = [:]
        var pushes: [FakeAPNs.Push] = []
        var commands: [(Command, DispatchSemaphore)] = []
        var connectionsAccepted = 0
        var pingsReceived = 0
        var answered = 0
        var stopped = false
    }

    let state = Mutex(State())
    let initialMaxConcurrentStreams: UInt32

    init(maxConcurrentStreams: UInt32) { initialMaxConcurrentStreams = maxConcurrentStreams }

    /// The scripted answer for the next push to `token`, if any.
    func nextAnswer(for token: String) -> FakeAPNs.Answer? {
        state.withLock { state in
            guard var script = state.scripts[token], !script.isEmpty else { return nil }
            let answer = script.removeFirst()
            state.scripts[token] = script
            return answer
        }
    }
}
