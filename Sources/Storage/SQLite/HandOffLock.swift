import Dispatch
import Synchronization

/// A lock that is handed to the thread that has waited longest. Unlocking with threads waiting
/// gives the lock to the first of them directly, so the thread that unlocked cannot take it back
/// first (as it can with a mutex or a semaphore, whose woken waiter still has to win a race):
/// however often another thread locks, a waiter is served after the ones that queued before it.
final class HandOffLock: Sendable {
    private final class Waiter: Sendable {
        let granted = DispatchSemaphore(value: 0)
    }

    private struct State {
        var held = false
        /// Oldest first.
        var queue: [Waiter] = []
    }

    private let state = Mutex(State())

    /// Takes the lock, waiting until `deadline` at most; false if it was not free in time.
    func lock(before deadline: DispatchTime) -> Bool {
        let waiter = state.withLock { state -> Waiter? in
            guard state.held else {
                state.held = true
                return nil
            }
            let waiter = Waiter()
            state.queue.append(waiter)
            return waiter
        }
        guard let waiter else { return true }
        if waiter.granted.wait(timeout: deadline) == .success { return true }
        // Timed out: leave the queue, unless an unlock handed us the lock in the meantime.
        let handedOver = state.withLock { state -> Bool in
            guard let index = state.queue.firstIndex(where: { $0 === waiter }) else { return true }
            state.queue.remove(at: index)
            return false
        }
        guard handedOver else { return false }
        waiter.granted.wait()
        return true
    }

    /// Releases the lock, to the longest waiting thread if there is one.
    func unlock() {
        let next = state.withLock { state -> Waiter? in
            guard !state.queue.isEmpty else {
                state.held = false
                return nil
            }
            return state.queue.removeFirst()
        }
        next?.granted.signal()
    }
}
