import Foundation

/// How fast an outbox may send: asked by the engine's thread before every claim, told after every
/// send. The push dispatcher's is `PushPacing` (pushes paced by the phones' fetches); `Unpaced`
/// sends as fast as the sender takes messages.
protocol OutboxPacing: Sendable {
    /// How many more messages may leave now; nil means no limit. When it is 0 the engine asks
    /// again after `recheckInterval`.
    mutating func allowance(now: Date) -> Int?
    /// `count` messages just left.
    mutating func sent(_ count: Int, now: Date)
    /// While held back, how soon to look again.
    var recheckInterval: TimeInterval { get }
}

/// No pacing.
struct Unpaced: OutboxPacing {
    func allowance(now: Date) -> Int? { nil }
    func sent(_ count: Int, now: Date) {}
    var recheckInterval: TimeInterval { 1 }
}
