import Foundation
import Logging
import PassServer

extension CommandLineInterface {
    static var serveCommand: Command {
        Command(
            "serve",
            summary: "Serve the device API, admin API and downloads; dispatch pushes and run jobs.",
            usage: "[options]",
            details: "Every option is also an environment variable (flags win):\n\n" + settingsHelp()
                + "\n\n  --no-migrate  Same as --migrate-on-start=false\n\nSIGTERM or SIGINT stops accepting, drains in-flight requests, and exits 0."
        ) { arguments, context in
            let configuration: Configuration
            do throws(ConfigurationError) {
                configuration = try Configuration.load(
                    environment: context.environment, arguments: arguments, requirements: .serve, checkingFiles: false
                )
            } catch {
                throw StartupError(error)
            }
            // Request threads hand their lines to a writer thread rather than taking one lock and
            // making one write(2) each; everything logged is written before serve returns.
            let sink = BufferedSink()
            defer { sink.shutdown() }
            let application = try Application(configuration: configuration, logSink: sink)
            switch try application.developmentAdminToken() {
            case .minted(let token):
                context.standardOutput("Development admin token (shown once; create more with `pass-server token create`):\n  \(token)")
            case .mintWith(let command):
                context.standardOutput("Admin tokens exist already (the first was shown on the first start only). Mint another with:\n  \(command)")
            case nil:
                break
            }
            try application.runUntilSignalled()
            return ExitCode.success
        }
    }

    static var migrateCommand: Command {
        Command(
            "migrate",
            summary: "Apply pending database migrations and exit.",
            usage: "[--database-url URL]",
            details: "Safe to run from several processes at once (PostgreSQL advisory lock)."
        ) { arguments, context in
            let configuration = try Configuration.load(environment: context.environment, arguments: arguments)
            try Application.migrate(configuration: configuration)
            context.standardOutput("database is up to date")
            return ExitCode.success
        }
    }

    /// The settings table as help text: flag, variable, default, summary.
    static func settingsHelp() -> String {
        Configuration.settings.map { setting in
            let flag = setting.flag + (setting.isBoolean ? "" : " VALUE")
            let defaultText = setting.documentedDefault.map { " (default: \($0))" } ?? ""
            return "  \(flag)\n      \(setting.key): \(setting.summary)\(defaultText)"
        }.joined(separator: "\n")
    }
}
