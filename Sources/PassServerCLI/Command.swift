import Foundation
import PassServer
import SystemSupport

/// Exit codes of `pass-server` (BSD sysexits where one fits).
public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    /// Usage or configuration error (EX_USAGE).
    public static let usage: Int32 = 64
    /// Try again later: another process holds what the command needs (EX_TEMPFAIL).
    public static let temporaryFailure: Int32 = 75
}

/// The streams and environment a command runs with; injected so tests can capture them.
public struct CommandContext: Sendable {
    public var environment: [String: String]
    public var standardOutput: @Sendable (String) -> Void
    public var standardError: @Sendable (String) -> Void
    /// Whether standard output is a terminal (progress bars vs. progress lines).
    public var isTerminal: Bool

    /// Defaults: the process environment, standard output and error, and whether stdout is a terminal.
    public init(
        environment: [String: String]? = nil,
        standardOutput: (@Sendable (String) -> Void)? = nil,
        standardError: (@Sendable (String) -> Void)? = nil,
        isTerminal: Bool? = nil
    ) {
        self.environment = environment ?? ProcessInfo.processInfo.environment
        self.standardOutput = standardOutput ?? { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) }
        self.standardError = standardError ?? { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
        self.isTerminal = isTerminal ?? (isatty(STDOUT_FILENO) != 0)
    }
}

/// A node of the command tree: either runs, or has subcommands, and always has `--help`.
public struct Command: Sendable {
    public let name: String
    public let summary: String
    /// Usage line after the command path, e.g. `[options]` or `--name NAME`.
    public let usage: String
    /// Extra help text (options, examples).
    public let details: String
    public let subcommands: [Command]
    package let action: (@Sendable (_ arguments: [String], _ context: CommandContext) throws -> Int32)?

    package init(
        _ name: String, summary: String, usage: String = "", details: String = "", subcommands: [Command] = [],
        action: (@Sendable (_ arguments: [String], _ context: CommandContext) throws -> Int32)? = nil
    ) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.details = details
        self.subcommands = subcommands
        self.action = action
    }

    package func help(path: [String]) -> String {
        let fullName = path.joined(separator: " ")
        var text = "\(summary)\n\nUsage: \(fullName)"
        if !subcommands.isEmpty {
            text += " <command> [options]\n\nCommands:\n"
            let width = subcommands.map(\.name.count).max() ?? 0
            for command in subcommands {
                text += "  \(command.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\(command.summary)\n"
            }
            text += "\nRun '\(fullName) <command> --help' for a command's options."
        } else {
            text += usage.isEmpty ? "" : " \(usage)"
        }
        if !details.isEmpty { text += "\n\n\(details)" }
        return text
    }
}
