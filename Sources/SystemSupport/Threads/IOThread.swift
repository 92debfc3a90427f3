// The dedicated thread that runs a poll() loop, and what such a loop needs from the system.
// The APNs client's I/O thread, the fake APNs server's and the fleet's all start here: blocking
// poll() and getaddrinfo() calls never run on Swift's cooperative pool.

import Foundation

/// A named thread running one loop to completion; others can wait for it to end.
package final class IOThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread at once; `body` returns when the loop is done.
    package init(name: String, _ body: @escaping @Sendable () -> Void) {
        let done = finished
        let thread = Thread {
            nameCurrentThread(name)
            body()
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until the loop has returned, at most `timeout`; false when it is still running.
    @discardableResult
    package func waitUntilFinished(timeout: Duration) -> Bool {
        // Beyond a few years a timeout means "no timeout" (and would overflow the conversion).
        guard timeout.components.seconds < 100_000_000 else {
            finished.wait()
            return true
        }
        return finished.wait(timeout: .now() + .milliseconds(Int(max(0, timeout.milliseconds)))) == .success
    }
}

/// Blocks SIGPIPE for the calling thread only: a write to a connection the peer reset then fails
/// with EPIPE instead of killing the process (OpenSSL writes with plain write(), not MSG_NOSIGNAL).
/// The signal is thread-directed, so it stays pending here and never reaches other threads.
package func blockSIGPIPE() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGPIPE)
    pthread_sigmask(SIG_BLOCK, &set, nil)
}

/// Gives the calling thread its name in the kernel (`/proc/<pid>/task/<tid>/comm`, at most 15
/// bytes), so `top -H` and per-thread CPU figures show it: Foundation's `Thread.name` does not
/// reach the kernel on Linux, where a thread otherwise keeps the name of the thread that made it.
package func nameCurrentThread(_ name: String) {
    let handle = open("/proc/thread-self/comm", O_WRONLY)
    guard handle >= 0 else { return }
    defer { close(handle) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(handle, $0.baseAddress, $0.count) }
}
