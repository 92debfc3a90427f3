import Foundation
public import Testing

/// Polls `condition` every 50 ms until it holds or `timeout` seconds pass (generous: the machine
/// is shared). On a timeout, records an issue at the caller's `sourceLocation` saying what was
/// awaited (`what` is evaluated then, so it may show the last state the condition saw) and throws.
///
/// Sleeps asynchronously: a waiting test holds no thread that the code under test needs.
public func eventually(
    _ what: @autoclosure () -> String = "",
    timeout: Double = 30,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    // Once more: a task held back by a busy machine may wake only after the deadline.
    let held = try condition()
    try #require(held, "timed out after \(Int(timeout)) s waiting: \(what())", sourceLocation: sourceLocation)
}
