import Dispatch
import Glibc
import PassServerTesting
import Testing

@testable import PassServer

/// `SignalWatch`, which `serve` stops on: a signal sent the moment the watch exists is not lost.
@Suite("Signal watch", .offCooperativePool, .timeLimit(.minutes(1)))
struct SignalWatchTests {
    @Test("a signal sent the moment the watch is set up is seen")
    func signalRightAfterSetup() {
        // A real-time signal nothing else in the test process uses: only the first source for a
        // signal in a process races with its registration, so the signal must be a fresh one.
        let number = __libc_current_sigrtmin() + 7
        let watch = SignalWatch([number])
        defer { watch.cancel() }
        kill(getpid(), number)
        #expect(watch.wait(until: .now() + 10), "the signal sent at once was lost")
    }
}
