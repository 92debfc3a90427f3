import Synchronization

/// A counting semaphore for async code: at most `count` holders at once, the others suspended (not
/// blocked), served highest priority first and in the order they asked among equals.
///
/// The `offCooperativePool` trait takes a slot for each test function, so that moving tests off
/// Swift's cooperative pool (whose few threads used to hold the rest back) does not start every
/// test of the process at once; tests with longer time limits go first, so that the longest do not
/// start last and stretch the run.
public final class TestSlots: Sendable {
    private struct State {
        var free: Int
        /// Highest priority first.
        var waiting: [(priority: Double, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    public init(count: Int) {
        state = Mutex(State(free: max(1, count)))
    }

    /// How many wait for a slot now.
    public var waiting: Int { state.withLock { $0.waiting.count } }

    /// Runs `body` while holding a slot, waiting for one first if none is free.
    public func withSlot<T>(priority: Double = 0, _ body: () async throws -> T) async rethrows -> T {
        await acquire(priority: priority)
        defer { release() }
        return try await body()
    }

    private func acquire(priority: Double) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                guard state.free > 0 else {
                    let place = state.waiting.firstIndex { $0.priority < priority } ?? state.waiting.endIndex
                    state.waiting.insert((priority, continuation), at: place)
                    return false
                }
                state.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            // The slot passes straight to the first waiter.
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
    }
}
