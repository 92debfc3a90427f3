import Foundation
import Logging
import PassServer
import Storage

extension CommandLineInterface {
    static var pruneCommand: Command {
        Command(
            "prune",
            summary: "Delete what is past its retention now: old push log entries and failed pushes, finished jobs, registrations of ended events.",
            usage: "[--push-log-retention D] [--job-retention D] [--registration-retention D] [--database-url URL]",
            details: """
                The same sweep every server runs each RETENTION_INTERVAL, with the same settings (environment or flags;
                durations such as 30d or 12h):
                  push_log and failed push_outbox rows  older than PUSH_LOG_RETENTION (default 30d)
                  finished jobs                         finished more than JOB_RETENTION ago (default 90d)
                  registrations                         of passes whose event ended more than REGISTRATION_RETENTION ago
                                                        (default 180d; an event without an end counts from its start),
                                                        and the devices left without any registration
                Deletes in small batches, so it is safe while servers run. Prints the rows removed per table.
                Exits 75 without deleting anything when another process is sweeping at this moment.
                """
        ) { arguments, context in
            let (_, configuration) = try commandOptions(arguments, context: context, valued: [])
            let store = try Application.openStore(configuration)
            defer { store.close() }
            try store.migrate()
            let sweep = RetentionSweep(
                store: store, retention: configuration.retention, logger: Logger(label: "prune", level: configuration.logLevel),
                holder: "prune-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
            )
            guard let removed = try sweep.run() else {
                context.standardError("error: another process is sweeping right now; nothing was deleted. Try again in a few minutes.")
                return ExitCode.temporaryFailure
            }
            for table in removed.tables {
                context.standardOutput("\(table.name): \(table.count) removed")
            }
            if configuration.retention.eraseAfterDays != nil {
                context.standardOutput("events erased: \(removed.erasedEvents)")
            }
            return ExitCode.success
        }
    }
}
