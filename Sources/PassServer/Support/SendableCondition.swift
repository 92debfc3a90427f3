import Foundation

/// `NSCondition` for use from several threads.
// Safe because NSCondition is a thread-safe lock/condition pair by design; the class only forwards to it.
final class SendableCondition: @unchecked Sendable {
    private let condition = NSCondition()
    func lock() { condition.lock() }
    func unlock() { condition.unlock() }
    func wait() { condition.wait() }
    @discardableResult func wait(until date: Date) -> Bool { condition.wait(until: date) }
    func broadcast() { condition.broadcast() }
    func signal() { condition.signal() }
}
