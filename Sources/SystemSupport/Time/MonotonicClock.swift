import Foundation

/// Monotonic seconds (CLOCK_MONOTONIC), for deadlines, timers and backoff: unlike `Date` it never
/// jumps when the wall clock is set.
package func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
