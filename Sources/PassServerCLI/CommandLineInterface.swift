import Foundation
import PassServer
import Storage
import SystemSupport

/// The `pass-server` command tree. `main.swift` only calls `run` and exits with its code.
public enum CommandLineInterface {
    public static let version = "0.1.0"

    /// Runs the command named by `arguments` (without the program name); returns the exit code.
    public static func run(_ arguments: [String], context: CommandContext = CommandContext()) -> Int32 {
        run(arguments, root: root, context: context)
    }

    /// Runs `arguments` against the command tree `root` (named after its program).
    package static func run(_ arguments: [String], root: Command, context: CommandContext) -> Int32 {
        var path = [root.name]
        var command = root
        var remaining = arguments[...]
        while let next = remaining.first, !next.hasPrefix("-"),
            let sub = command.subcommands.first(where: { $0.name == next })
        {
            command = sub
            path.append(next)
            remaining = remaining.dropFirst()
        }
        let rest = Array(remaining)
        if rest.contains("--help") || rest.contains("-h") || (rest.first == "help" && command.subcommands.isEmpty == false) {
            context.standardOutput(command.help(path: path))
            return ExitCode.success
        }
        if path.count == 1, rest == ["--version"] {
            context.standardOutput("\(root.name) \(version)")
            return ExitCode.success
        }
        guard let action = command.action else {
            let problem = rest.first.map { "unknown command '\($0)'" } ?? "a command is required"
            context.standardError("error: \(problem)\n\n" + command.help(path: path))
            return ExitCode.usage
        }
        do {
            return try action(rest, context)
        } catch {
            return report(error, path: path, usage: command.usage, context: context)
        }
    }

    /// Prints what a command's `error` means on standard error and returns the exit code: 64 for
    /// usage, configuration and start-up problems, 1 for anything else.
    package static func report(_ error: any Error, path: [String], usage: String, context: CommandContext) -> Int32 {
        let fullName = path.joined(separator: " ")
        switch error {
        case let error as UsageError:
            context.standardError("error: \(error.message)\n\nUsage: \(fullName) \(usage)\nRun '\(fullName) --help' for details.")
            return ExitCode.usage
        case let error as ConfigurationError:
            context.standardError("error: \(error)")
            return ExitCode.usage
        case let error as StartupError:
            context.standardError("error: \(fullName) \(error)")
            return ExitCode.usage
        case let error as StorageError:
            context.standardError("error: \(error.reason)")
            return ExitCode.failure
        default:
            context.standardError("error: \(error)")
            return ExitCode.failure
        }
    }

    static var root: Command {
        Command(
            "pass-server",
            summary: "PassServer: an Apple Wallet pass web service for event tickets.",
            details: "Options:\n  --help     Show help for any command\n  --version  Print the version",
            subcommands: [
                serveCommand, migrateCommand, pruneCommand, tokenCommand, repushCommand, revisionCommand, certsCommand, passCommand,
            ]
        )
    }
}
