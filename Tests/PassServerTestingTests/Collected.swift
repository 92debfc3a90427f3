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

    func wait() -> Result<T, any Error> {
        done.wait()
        return result.withLock { $0 } ?? .failure(CancellationError())
    }
}
