import Foundation
import PassBundle
import Storage

extension CommandLineInterface {
    static var benchCommand: Command {
        Command(
            "bench",
            summary: "Measure this machine (used by `make bench`).",
            subcommands: [
                Command(
                    "storage", summary: "Registration upserts/s or changed-serial queries/s against DATABASE_URL.",
                    usage: "--operation registrations|changed-serials [--count N] [--threads N] [--database-url URL]"
                ) { arguments, context in
                    let (options, configuration) = try commandOptions(arguments, context: context, valued: ["operation", "count", "threads"])
                    guard let operation = StorageBenchmark.Operation(rawValue: try options.required("operation")) else {
                        throw UsageError("--operation must be registrations or changed-serials")
                    }
                    guard let count = Int(options.options["count"] ?? "20000"), count > 0,
                        let threads = Int(options.options["threads"] ?? "8"), threads > 0
                    else { throw UsageError("--count and --threads must be positive numbers") }
                    let store = try Application.openStore(configuration)
                    defer { store.close() }
                    let result = try StorageBenchmark.run(store: store, operation: operation, count: count, threads: threads)
                    context.standardOutput(result.markdownRow(backend: store.backend))
                    return ExitCode.success
                },
                Command(
                    "bundles", summary: "Signed bundles built per second.",
                    usage: "[--threads N] [--seconds S]"
                ) { arguments, context in
                    let options = try OptionParser(arguments, valued: ["threads", "seconds", "passes-dir"])
                    let threads = Int(options.options["threads"] ?? "1") ?? 1
                    let seconds = Double(options.options["seconds"] ?? "5") ?? 5
                    let directory = (options.options["passes-dir"] ?? "Passes") + "/event-ticket"
                    let rate = try PassBundleBenchmark.run(threads: threads, seconds: seconds, templateDirectory: directory)
                    context.standardOutput(String(format: "%.1f", rate))
                    return ExitCode.success
                },
                Command(
                    "tokens",
                    summary: "Print serial<TAB>authenticationToken (or, with --codes, serial<TAB>barcode message) for an event's passes (bench/device.sh, bench/checkin.sh).",
                    usage: "--event ID [--codes] [--database-url URL] [--token-secret HEX | --development]"
                ) { arguments, context in
                    let (options, configuration) = try commandOptions(arguments, context: context, valued: ["event"], booleans: ["codes"])
                    let eventID = try options.required("event")
                    let codes = options.flags.contains("codes")
                    let vault = TokenVault(secret: try Application.tokenSecret(configuration))
                    let store = try Application.openStore(configuration)
                    defer { store.close() }
                    // The tokens are HMAC-derived, so the benchmark needs the secret, not the database, to know them.
                    var cursor: Int64 = 0
                    while true {
                        let page = try store.withSession(.read) { try $0.passes(eventID: eventID, after: cursor, limit: 500) }
                        for pass in page {
                            guard let passType = PassTypeIdentifier(pass.passTypeIdentifier), let serial = SerialNumber(pass.serialNumber) else { continue }
                            let secret = codes
                                ? try vault.barcode(passType: passType, serial: serial).message
                                : try vault.authenticationToken(passType: passType, serial: serial).rawValue
                            context.standardOutput("\(serial.rawValue)\t\(secret)")
                        }
                        guard let last = page.last, page.count == 500 else { break }
                        cursor = last.id
                    }
                    return ExitCode.success
                },
            ]
        )
    }
}
