import Foundation

/// Runs blocking work (a PostgreSQL cluster starting or stopping, a pool of waiting threads) on a
/// thread of its own and awaits its result, so that a test never holds one of the few threads of
/// Swift's cooperative pool that other tests and the code under test need.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
