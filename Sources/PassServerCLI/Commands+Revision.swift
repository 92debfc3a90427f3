import PassServer
import Storage
import SystemSupport

extension CommandLineInterface {
    static var revisionCommand: Command {
        Command(
            "revision",
            summary: "Show or advance the revision counter behind the lastUpdated tags phones hold.",
            details: """
                After restoring a database backup the counter is behind the tags phones already hold, and those
                phones miss changes until it catches up: advance it past them (see docs/deploying.md, "Restoring a backup").
                """,
            subcommands: [revisionShowCommand, revisionAdvanceCommand]
        )
    }

    static var revisionShowCommand: Command {
        Command(
            "show", summary: "Print the current revision counter (the revision of the latest change).",
            usage: "[--database-url URL]"
        ) { arguments, context in
            let (_, configuration) = try commandOptions(arguments, context: context, valued: [])
            let store = try Application.openStore(configuration)
            defer { store.close() }
            try store.migrate()
            context.standardOutput(String(try store.withSession(.read) { try $0.revisions.currentRevision() }))
            return ExitCode.success
        }
    }

    static var revisionAdvanceCommand: Command {
        Command(
            "advance", summary: "Raise the revision counter by N; it never goes down.",
            usage: "--by N [--database-url URL]",
            details: """
                N is a positive whole number. Choose it larger than the number of pass and event changes made since the
                restored backup was taken; a generous value such as 1000000 costs nothing (the counter is a 64-bit integer).
                Safe while servers run: changes committing at the same time keep distinct, increasing revisions.
                """
        ) { arguments, context in
            let (options, configuration) = try commandOptions(arguments, context: context, valued: ["by"])
            let text = try options.required("by")
            guard let amount = Int64(text), amount > 0 else {
                throw UsageError("--by must be a positive whole number (for example 1000000), not '\(text)'")
            }
            let store = try Application.openStore(configuration)
            defer { store.close() }
            try store.migrate()
            let advance = try store.withSession(.write) { try $0.revisions.advanceRevision(by: amount) }
            context.standardOutput("revision counter advanced from \(advance.before) to \(advance.after)")
            return ExitCode.success
        }
    }
}
