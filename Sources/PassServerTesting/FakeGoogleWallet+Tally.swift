public import Foundation

extension FakeGoogleWallet {
    /// What the fake answered with success, counted as it happens: calls on objects (alone or as
    /// parts of a batch), class patches and batch requests, with the times benchmarks measure.
    public struct Tally: Sendable {
        public var objectCalls = 0
        public var firstObjectCall: Date?
        public var lastObjectCall: Date?
        public var classPatches = 0
        public var lastClassPatch: Date?
        public var batches = 0
    }
}
