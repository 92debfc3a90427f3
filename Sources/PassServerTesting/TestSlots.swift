import Synchronization

/// A counting semaphore for async code: at most `count` holders at once, the others suspended (not
/// blocked) in the order they asked.
///
/// The `offCooperativePool` trait takes a slot for each test function, so that moving tests off
/// Swift's cooperative pool (whose few threads used to hold the rest back) does not start every
/// test of the process at once.
public final class TestSlots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    public init(count: Int) {
        state = Mutex(State(free: max(1, count)))
    }

    /// Runs `body` while holding a slot, waiting for one first if none is free.
    public func withSlot<T>(_ body: () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
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
            // The slot passes straight to the longest waiter.
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
