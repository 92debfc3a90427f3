import Foundation

/// The calling thread's own CPU time, which a neighbour's load on a shared machine disturbs far
/// less than the wall clock.
enum ThreadClock {
    /// CPU seconds this thread has run so far.
    static func cpuSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
