import Foundation
import Logging
import PassServer
import Storage

extension CommandLineInterface {
    static var repushCommand: Command {
        Command(
            "repush",
            summary: "Run or resume the re-push job of an event in the foreground.",
            usage: "--event EVENT_ID [--database-url URL]",
            details: """
                Bumps every pass of the event in batches and enqueues their pushes; a running server's dispatcher
                sends them. Resumes an unfinished job of the event (after a crash) instead of starting over.
                Shows a progress bar on a terminal, progress lines otherwise.
                """
        ) { arguments, context in
            let (options, configuration) = try commandOptions(arguments, context: context, valued: ["event"])
            let eventID = try options.required("event")
            let store = try Application.openStore(configuration)
            defer { store.close() }
            try store.migrate()
            let job = try store.withSession(.write) { session -> Job? in
                guard try session.events.event(id: eventID) != nil else { return nil }
                let unfinished = try session.jobs.jobs(eventID: eventID, limit: 20).first { $0.state == .pending || $0.state == .running }
                return try unfinished ?? session.jobs.createJob(kind: Job.repushKind, eventID: eventID, now: Date())
            }
            guard let job else {
                context.standardError("error: no event '\(eventID)'")
                return ExitCode.failure
            }
            let runner = JobRunner(
                store: store, logger: Logger(label: "repush", level: configuration.logLevel), settings: JobRunner.Settings(configuration.jobs)
            )
            var lastLine = Date.distantPast
            let finished = try runner.run(job, progress: { job in
                let percent = job.total > 0 ? Int(job.done * 100 / job.total) : 100
                if context.isTerminal {
                    let width = 30
                    let filled = width * percent / 100
                    let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                    FileHandle.standardOutput.write(Data("\r[\(bar)] \(percent)% \(job.done)/\(job.total)".utf8))
                } else if Date().timeIntervalSince(lastLine) >= 2 || job.state == .done {
                    context.standardOutput("job \(job.id): \(job.done)/\(job.total) passes (\(percent)%)")
                    lastLine = Date()
                }
            })
            if context.isTerminal { FileHandle.standardOutput.write(Data("\n".utf8)) }
            context.standardOutput("job \(finished.id) \(finished.state.rawValue): \(finished.done)/\(finished.total) passes bumped")
            return finished.state == .done ? ExitCode.success : ExitCode.failure
        }
    }
}
