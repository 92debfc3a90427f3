import Foundation
public import Testing

/// Runs a test's body, and the child tasks it starts, on `OwnThreadExecutor.shared` rather than on
/// Swift's cooperative pool, so that a test may block (a blocking HTTP client, a child process, a
/// database wait, a sleep) without stalling the other tests' tasks or those of the server under test.
///
/// On a suite it applies to every test and nested suite in it. Unstructured tasks (`Task { }`) that
/// the code under test starts still run on the cooperative pool, which stays free for them.
///
/// The cooperative pool's few threads used to limit how many tests ran at once; off it, at most
/// `slots.count` test functions with this trait run at once (each with all its cases), those with
/// longer time limits first. A test waits for its slot before its time limit starts.
public struct OffCooperativePool: TestTrait, SuiteTrait, TestScoping {
    /// Test functions with this trait that may run at once: a few per core, since most of them spend
    /// much of their time waiting on a server, a database or a child process.
    public static let slots = TestSlots(count: 3 * ProcessInfo.processInfo.activeProcessorCount)

    /// Whether this task's test already holds one of `slots`.
    @TaskLocal private static var holdsSlot = false

    public var isRecursive: Bool { true }

    /// Called for each test function (`testCase` nil: its slot, outside its time limit) and for
    /// each of its cases (the executor, inside the time limit); not for suites.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? nil : self
    }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else {
            // Once per test: the trait may reach it twice (from the test and from its suite).
            guard !Self.holdsSlot else { return try await function() }
            let priority = test.timeLimit.map { Double($0.components.seconds) } ?? 0
            try await Self.slots.withSlot(priority: priority) {
                try await Self.$holdsSlot.withValue(true) { try await function() }
            }
            return
        }
        try await withTaskExecutorPreference(OwnThreadExecutor.shared) {
            try await function()
        }
    }
}

extension Trait where Self == OffCooperativePool {
    /// Runs the test, or every test of the suite, off Swift's cooperative pool (see `OffCooperativePool`).
    public static var offCooperativePool: Self { Self() }
}
