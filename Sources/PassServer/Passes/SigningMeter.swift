import Foundation
import Synchronization
import SystemSupport

/// Bounds how many passes are signed at once and measures the signing: how many bundles were
/// asked for (the phones' fetches and downloads), how many were signed, and for how long signing
/// ran. The push dispatcher paces pushes with these figures (`PushPacer`).
///
/// At most `permits` bundles (one per core by default) are built at a time: more would only share
/// the same cores, each taking longer, while the other HTTP threads answer lists, 304s and cache
/// hits without waiting. Threads beyond the permits wait on a semaphore without spinning.
final class SigningMeter: Sendable {
    /// Totals since start.
    struct Snapshot: Sendable, Equatable {
        /// Bundles asked for (whether cached or signed).
        var requests = 0
        /// Bundles built and signed.
        var signed = 0
        /// Seconds spent building them, summed over the permits.
        var signingSeconds: Double = 0
        /// Builds waiting for a permit right now.
        var waiting = 0
    }

    let permits: Int
    private let gate: DispatchSemaphore
    private let state = Mutex(Snapshot())

    init(permits: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.permits = max(1, permits)
        gate = DispatchSemaphore(value: self.permits)
    }

    var snapshot: Snapshot { state.withLock { $0 } }

    /// A bundle was asked for.
    func requested() {
        state.withLock { $0.requests += 1 }
    }

    /// Runs `build` under a permit and measures it.
    func sign<T>(_ build: () throws -> T) rethrows -> T {
        state.withLock { $0.waiting += 1 }
        gate.wait()
        state.withLock { $0.waiting -= 1 }
        let start = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - start
            let seconds = elapsed.timeInterval
            state.withLock { state in
                state.signed += 1
                state.signingSeconds += seconds
            }
            gate.signal()
        }
        return try build()
    }
}
