// The fleet's one I/O thread: a poll() loop over the HTTP client's sockets, a timer heap (think
// times, retries, the deadline) and an inbox through which other threads (the fake APNs thread,
// callers awaiting a result) hand it work. Everything the phones do happens on this thread.

import Foundation
import Synchronization
import SystemSupport

final class EventLoop: @unchecked Sendable {
    // Safe because: `timers` and `pool` are touched only on the loop's own thread (other threads
    // reach it only through `execute`, whose inbox is a Mutex); `wake` is Sendable; `thread` is a Mutex.

    private struct Inbox {
        var work: [@Sendable () -> Void] = []
        var stopping = false
    }

    private let inbox = Mutex(Inbox())
    private let wake: WakePipe
    private var timers = TimerHeap<() -> Void>()
    private let thread = Mutex<IOThread?>(nil)
    /// The HTTP client; set on the loop thread once the server's port is known.
    var pool: ClientPool?

    init() throws(FleetError) {
        do throws(SystemCallError) { wake = try WakePipe() } catch { throw FleetError(.invalidConfiguration, error.description) }
    }

    /// Starts the thread.
    func start() {
        let started = IOThread(name: "fleet") { [self] in run() }
        thread.withLock { $0 = started }
    }

    /// Runs `work` on the loop thread soon; callable from any thread. False (and `work` dropped)
    /// once the loop is stopping.
    @discardableResult
    func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
        let (accepted, first) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.stopping else { return (false, false) }
            inbox.work.append(work)
            return (true, inbox.work.count == 1)
        }
        // One wake-up per batch: a burst of pushes costs one write to the pipe.
        if first { wake.signal() }
        return accepted
    }

    /// Runs `work` on the loop thread after `seconds` (loop thread only).
    func after(_ seconds: Double, _ work: @escaping () -> Void) {
        timers.add(due: monotonicSeconds() + max(0, seconds), work)
    }

    /// Stops the loop (in-flight requests fail with `.shutdown`) and waits for the thread; idempotent.
    func stop() {
        let first = inbox.withLock { inbox -> Bool in
            defer { inbox.stopping = true }
            return !inbox.stopping
        }
        guard first else { return }
        wake.signal()
        thread.withLock { $0 }?.waitUntilFinished(timeout: .seconds(30))
    }

    private func run() {
        blockSIGPIPE()
        var fds: [pollfd] = []
        while true {
            let (work, stopping) = inbox.withLock { inbox in
                defer { inbox.work.removeAll(keepingCapacity: true) }
                return (inbox.work, inbox.stopping)
            }
            for item in work { item() }
            if stopping { break }
            var now = monotonicSeconds()
            while let due = timers.popDue(now: now) { due() }
            pool?.dispatch(now: now)
            let ran = pool?.complete() ?? 0

            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0))
            pool?.appendPollFDs(to: &fds)
            var timeout: Int32 = ran > 0 ? 0 : 100
            if let due = timers.nextDue { timeout = min(timeout, Int32(max(0, (due - now) * 1000).rounded(.up))) }
            _ = poll(&fds, nfds_t(fds.count), timeout)
            if fds[0].revents != 0 { wake.drain() }
            now = monotonicSeconds()
            pool?.handle(fds[1...], now: now)
            pool?.complete()
        }
        pool?.shutdown()
        pool = nil
        // Work posted just before the stop runs once, without a client, so its callers see the shutdown.
        let late = inbox.withLock { inbox in
            defer { inbox.work.removeAll() }
            return inbox.work
        }
        for item in late { item() }
    }
}
