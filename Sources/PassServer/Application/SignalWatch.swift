import Dispatch
import Glibc

/// Waits for one of a few signals (SIGTERM and SIGINT for `serve`) without losing one sent at any
/// moment after `init` returns.
///
/// libdispatch on Linux registers a signal source asynchronously, on its manager thread, and only
/// then installs the handler that feeds it; until then the signal must be ignored (its default
/// action would end the process), so one sent in between is lost. On a busy machine that window
/// outlasted the server's startup: a SIGTERM sent as soon as "listening" was logged was ignored and
/// the server never stopped. `init` therefore returns only once every source is registered.
///
/// Threading: `init` and `wait` block the calling thread; the sources' handlers run on a private
/// serial queue.
final class SignalWatch {
    private let received = DispatchSemaphore(value: 0)
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32]) {
        let queue = DispatchQueue(label: "pass-server.signals")
        let registered = DispatchSemaphore(value: 0)
        let received = received
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [received] in received.signal() }
            source.setRegistrationHandler { registered.signal() }
            source.resume()
            return source
        }
        for _ in signals { registered.wait() }
    }

    /// Blocks until one of the signals has arrived; false if `deadline` came first.
    @discardableResult
    func wait(until deadline: DispatchTime = .distantFuture) -> Bool {
        received.wait(timeout: deadline) == .success
    }

    /// Stops watching (the signals stay ignored).
    func cancel() {
        sources.forEach { $0.cancel() }
    }
}
