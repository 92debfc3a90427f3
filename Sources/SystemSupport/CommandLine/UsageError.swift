/// A command-line mistake: the program prints it with its usage and exits 64 (EX_USAGE).
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
