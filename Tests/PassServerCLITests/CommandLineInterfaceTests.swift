import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer
@testable import PassServerCLI

@Suite("Command line", .offCooperativePool, .timeLimit(.minutes(3)), .tags(.endToEnd))
struct CommandLineInterfaceTests {
    @Test("--help works at every level of the command tree")
    func helpEverywhere() {
        func visit(_ command: Command, path: [String]) {
            let output = CapturedOutput()
            let code = CommandLineInterface.run(path + ["--help"], context: output.context())
            #expect(code == ExitCode.success, "\(path) --help")
            #expect(output.standardOutput.contains("Usage: pass-server"), "\(path) --help")
            #expect(output.standardOutput.contains(command.summary), "\(path) --help")
            for sub in command.subcommands { visit(sub, path: path + [sub.name]) }
        }
        visit(CommandLineInterface.root, path: [])
    }

    @Test("serve --help lists every configuration key")
    func serveHelpListsSettings() {
        let output = CapturedOutput()
        #expect(CommandLineInterface.run(["serve", "--help"], context: output.context()) == ExitCode.success)
        #expect(Configuration.settings.count >= 40, "\(Configuration.settings.count) settings")
        for setting in Configuration.settings {
            #expect(output.standardOutput.contains(setting.key))
            #expect(output.standardOutput.contains(setting.flag))
        }
    }

    @Test("unknown commands and options exit 64")
    func usageErrors() {
        let output = CapturedOutput()
        #expect(CommandLineInterface.run(["frobnicate"], context: output.context()) == ExitCode.usage)
        #expect(output.standardError.contains("unknown command 'frobnicate'"))
        #expect(CommandLineInterface.run([], context: output.context()) == ExitCode.usage)
        #expect(CommandLineInterface.run(["migrate", "--nope"], context: output.context()) == ExitCode.usage)
    }

    @Test("two bad variables at once: both named in one message, exit 64")
    func twoBadVariables() {
        let output = CapturedOutput()
        let code = CommandLineInterface.run(
            ["serve"], context: output.context(environment: ["HTTP_PORT": "99999", "APNS_MODE": "carrier-pigeon"])
        )
        #expect(code == ExitCode.usage)
        #expect(output.standardError.contains("HTTP_PORT"))
        #expect(output.standardError.contains("APNS_MODE"))
    }

    @Test("the real executable exits 64 on a configuration error")
    func executableExitCode() throws {
        let result = try PassServerExecutable.run(["serve"], environment: ["HTTP_PORT": "-1", "LOG_LEVEL": "chatty"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("HTTP_PORT"))
        #expect(result.standardError.contains("LOG_LEVEL"))
    }

    @Test("the real executable prints its commands on --help and exits 0; the benchmark drivers live in pass-server-bench")
    func executableHelp() throws {
        let result = try PassServerExecutable.run(["--help"])
        #expect(result.status == 0, "\(result.standardError)")
        for command in ["serve", "migrate", "prune", "token", "repush", "revision", "certs", "pass"] {
            #expect(result.standardOutput.contains("\n  \(command) "), "\(command) missing from \(result.standardOutput)")
        }
        #expect(!result.standardOutput.contains("\n  bench "))
        let unknown = try PassServerExecutable.run(["bench", "storage"])
        #expect(unknown.status == 64)
        #expect(unknown.standardError.contains("unknown command 'bench'"))
    }
}
