/// Why the fake could not start.
public struct FakeAPNsError: Error, Sendable, CustomStringConvertible {
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { "FakeAPNsError: \(message)" }
}
