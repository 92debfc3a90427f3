import Dispatch
import Synchronization

/// Values appended from many threads at once.
final class Collected<Element: Sendable>: Sendable {
    private let values = Mutex<[Element]>([])

    func append(_ value: Element) { values.withLock { $0.append(value) } }
    var all: [Element] { values.withLock { $0 } }
}

/// One result handed from a thread to the thread waiting for it.
final class Outcome<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ value: Result<T, any Error>) {
        result.withLock { $0 = value }
        done.signal()
    }

    /// The result, or a failure once `seconds` pass without one.
    func wait(seconds: Double = 60) -> Result<T, any Error> {
        guard done.wait(timeout: .now() + seconds) == .success else { return .failure(TimedOut(seconds: seconds)) }
        return result.withLock { $0 } ?? .failure(CancellationError())
    }

    struct TimedOut: Error, CustomStringConvertible {
        var seconds: Double
        var description: String { "no result after \(seconds) s" }
    }
}
