import Foundation
import PassServerFixtures
import PassServerTesting

@testable import PassServer

/// Runs blocking work (an HTTP round trip, starting or stopping a server) on a thread of its own
/// and returns its result to the awaiting test.
///
/// Swift's cooperative pool has one thread per core (two here). A synchronous test blocks one of
/// them for as long as it runs, and the timing-sensitive tests running beside it (a dispatcher
/// killed mid-batch, a deadline measured while polling) then wake late. Tests that make many
/// requests await them through this instead; their `#expect`s stay in the test's own task.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        Thread {
            continuation.resume(with: Result { try work() })
        }.start()
    }
}

/// `offPool` for work that cannot fail (an application shutdown that waits for pushes in flight,
/// which needs the cooperative pool free to finish them).
func offPool(_ work: @escaping @Sendable () -> Void) async {
    _ = try? await offPool { () throws -> Void in work() }
}

extension TestApp {
    /// `TestApp.start` off the cooperative pool.
    static func startOffPool(_ backend: Backend, databaseURL: String? = nil, configure: @escaping @Sendable (inout Configuration) -> Void = { _ in }) async throws -> TestApp {
        try await offPool { try TestApp.start(backend, databaseURL: databaseURL, configure: configure) }
    }

    /// `admin(_:_:json:)` off the cooperative pool.
    func adminOffPool(_ method: String, _ target: String, json: String? = nil) async throws -> TestResponse {
        try await offPool { try self.admin(method, target, json: json) }
    }

    /// `request(_:_:headers:body:)` off the cooperative pool.
    func requestOffPool(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) async throws -> TestResponse {
        let sendableHeaders = headers.map { [$0.0, $0.1] }
        return try await offPool { try self.request(method, target, headers: sendableHeaders.map { ($0[0], $0[1]) }, body: body) }
    }
}

