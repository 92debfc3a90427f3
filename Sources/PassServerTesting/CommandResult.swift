import Foundation
import SystemSupport

/// Result of running a command-line tool in a test.
public struct CommandResult: Sendable {
    public let status: Int32
    public let output: String
    public let error: String
}

/// Runs a tool (looked up on PATH) and waits; both pipes are drained together so neither can stall it.
public func run(_ tool: String, _ arguments: [String], in directory: String? = nil) throws -> CommandResult {
    let process = try ChildProcess(tool, arguments, directory: directory, standardOutput: .pipe, standardError: .pipe)
    let (output, error) = try process.readToEnd()
    return CommandResult(
        status: process.terminationStatus, output: String(decoding: output, as: UTF8.self), error: String(decoding: error, as: UTF8.self)
    )
}
