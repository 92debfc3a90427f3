import PassIdentifiers
import APNs
import Foundation
import PassBundle
import PassServer
import PassServerCLI
import Storage
import SystemSupport

/// The `pass-server-bench` command tree: the drivers behind `make bench` (bench/*.sh), kept out of
/// the server's own executable and libraries.
public enum BenchmarkCommandLine {
    /// Runs the command named by `arguments` (without the program name); returns the exit code.
    public static func run(_ arguments: [String]) async -> Int32 {
        // `apns` drives the async push client; the rest block on their own threads.
        if arguments.first == "apns", !arguments.contains("--help"), !arguments.contains("-h") {
            return await apns(Array(arguments.dropFirst()), context: CommandContext())
        }
        return CommandLineInterface.run(arguments, root: root, context: CommandContext())
    }

    static var root: Command {
        Command(
            "pass-server-bench",
            summary: "Measure this machine (used by `make bench` and bench/*.sh).",
            details: "Options:\n  --help     Show help for any command\n  --version  Print the version",
            subcommands: [
                Command(
                    "storage", summary: "Registration upserts/s or changed-serial queries/s against DATABASE_URL.",
                    usage: "--operation registrations|changed-serials [--count N] [--threads N] [--database-url URL]"
                ) { arguments, context in
                    let (options, configuration) = try CommandLineInterface.commandOptions(arguments, context: context, valued: ["operation", "count", "threads"])
                    guard let operation = StorageBenchmark.Operation(rawValue: try options.required("operation")) else {
                        throw UsageError("--operation must be registrations or changed-serials")
                    }
                    guard let count = Int(options.options["count"] ?? "20000"), count > 0,
                        let threads = Int(options.options["threads"] ?? "8"), threads > 0
                    else { throw UsageError("--count and --threads must be positive numbers") }
                    let store = try Application.openStore(configuration, creatingSQLiteFile: true)
                    defer { store.close() }
                    let result = try StorageBenchmark.run(store: store, operation: operation, count: count, threads: threads)
                    context.standardOutput(result.markdownRow(backend: store.backend))
                    return ExitCode.success
                },
                Command(
                    "attendance", summary: "The attendance page of an event of N tickets and M check-ins, rendered as the dashboard does: p50/p99 (bench/attendance.sh).",
                    usage: "[--tickets N] [--check-ins M] [--renders R] [--phase seed|measure|all] [--database-url URL] (seed: a database without the benchmark's event)"
                ) { arguments, context in
                    let (options, configuration) = try CommandLineInterface.commandOptions(arguments, context: context, valued: ["tickets", "check-ins", "renders", "phase"])
                    guard let tickets = Int(options.options["tickets"] ?? "100000"), tickets > 0,
                        let checkIns = Int(options.options["check-ins"] ?? "60000"), checkIns >= 0,
                        let renders = Int(options.options["renders"] ?? "200"), renders > 0
                    else { throw UsageError("--tickets, --check-ins and --renders must be positive numbers") }
                    guard let phase = AttendanceBenchmark.Phase(rawValue: options.options["phase"] ?? "all") else {
                        throw UsageError("--phase must be seed, measure or all")
                    }
                    let store = try Application.openStore(configuration, creatingSQLiteFile: true)
                    defer { store.close() }
                    let result = try AttendanceBenchmark.run(store: store, tickets: tickets, checkIns: checkIns, renders: renders, phase: phase)
                    if phase != .seed { context.standardOutput(result.markdownRow(backend: store.backend)) }
                    return ExitCode.success
                },
                Command(
                    "bundles", summary: "Signed bundles built per second: by the wall clock, then per CPU second of the building threads.",
                    usage: "[--threads N] [--seconds S] [--look template|all-images]"
                ) { arguments, context in
                    let options = try OptionParser(arguments, valued: ["threads", "seconds", "passes-dir", "look"])
                    guard let look = PassBundleBenchmark.Look(rawValue: options.options["look"] ?? "template") else {
                        throw UsageError("--look must be template or all-images")
                    }
                    let threads = Int(options.options["threads"] ?? "1") ?? 1
                    let seconds = Double(options.options["seconds"] ?? "5") ?? 5
                    let directory = (options.options["passes-dir"] ?? "Passes") + "/event-ticket"
                    let rate = try PassBundleBenchmark.run(threads: threads, seconds: seconds, templateDirectory: directory, look: look)
                    context.standardOutput(String(format: "%.1f %.1f", rate.wallClock, rate.perCPUSecond))
                    return ExitCode.success
                },
                Command(
                    "design-images",
                    summary: "Write the uploads of a whole event design (icon, logo, strip, background, thumbnail at their largest size) into a folder (bench/fleet.sh).",
                    usage: "--dir DIR"
                ) { arguments, context in
                    let options = try OptionParser(arguments, valued: ["dir"])
                    let directory = try options.required("dir")
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                    for (index, kind) in BenchImages.designKinds.enumerated() {
                        let path = directory + "/" + kind.rawValue + ".png"
                        guard FileManager.default.createFile(atPath: path, contents: Data(try BenchImages.upload(for: kind, seed: UInt64(index + 1)))) else {
                            throw UsageError("cannot write \(path)")
                        }
                        context.standardOutput(path)
                    }
                    return ExitCode.success
                },
                Command(
                    "frames",
                    summary: "Camera frames read per second on this thread, and their latency (bench/frames.sh); the typed check code's lookup cost.",
                    usage: "[--count N] [--tickets N]"
                ) { arguments, context in
                    let options = try OptionParser(arguments, valued: ["count", "tickets"])
                    guard let count = Int(options.options["count"] ?? "400"), count > 0,
                        let tickets = Int(options.options["tickets"] ?? "10000"), tickets > 0
                    else { throw UsageError("--count and --tickets must be positive numbers") }
                    let result = try FrameDecodeBenchmark.run(count: count)
                    let codes = try FrameDecodeBenchmark.checkCodes(tickets: tickets)
                    func ms(_ value: Double) -> String { String(format: "%.2f", value) }
                    context.standardOutput(
                        "p50_ms=\(ms(result.p50)) p99_ms=\(ms(result.p99)) max_ms=\(ms(result.max)) decode_p50_ms=\(ms(result.decodeP50)) "
                            + "scan_p50_ms=\(ms(result.scanP50)) frames_per_second=\(String(format: "%.1f", result.framesPerSecond)) "
                            + "cpu_p50_ms=\(ms(result.cpuP50)) cpu_p99_ms=\(ms(result.cpuP99)) "
                            + "frames_per_cpu_second=\(String(format: "%.1f", result.framesPerCPUSecond)) "
                            + "read=\(result.read)/\(result.frames) jpeg_bytes=\(result.averageBytes) "
                            + "check_codes_per_second=\(Int(codes.perSecond)) lookup_ms=\(ms(codes.lookupMilliseconds))"
                    )
                    return ExitCode.success
                },
                Command(
                    "tokens",
                    summary: "Print serial<TAB>authenticationToken (or, with --codes, serial<TAB>barcode message) for an event's passes (bench/device.sh, bench/checkin.sh).",
                    usage: "--event ID [--codes] [--database-url URL] [--token-secret HEX | --development]"
                ) { arguments, context in
                    let (options, configuration) = try CommandLineInterface.commandOptions(arguments, context: context, valued: ["event"], booleans: ["codes"])
                    let eventID = try options.required("event")
                    let codes = options.flags.contains("codes")
                    let vault = TokenVault(secret: try Application.tokenSecret(configuration))
                    let store = try Application.openStore(configuration)
                    defer { store.close() }
                    // The tokens are HMAC-derived, so the benchmark needs the secret, not the database, to know them.
                    var cursor: Int64 = 0
                    while true {
                        let page = try store.withSession(.read) { try $0.passes.passes(eventID: eventID, after: cursor, limit: 500) }
                        for pass in page {
                            let (passType, serial) = (pass.passTypeIdentifier, pass.serialNumber)
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
                Command(
                    "google-fake",
                    summary: "Serve the local fake of Google's Wallet API; write its service account, google.env and its tally into DIR until stopped (bench/google.sh).",
                    usage: "--dir DIR"
                ) { arguments, _ in
                    let options = try OptionParser(arguments, valued: ["dir"])
                    try GoogleFakeHost.run(directory: try options.required("dir"))
                },
                Command(
                    "webhook-seed",
                    summary: "Import tickets with no webhook endpoint, then with one at URL for ticket.issued, through the store; print the import's pace and the endpoint's secret (bench/webhooks.sh).",
                    usage: "--url URL [--tickets N] [--baseline N] [--chunk N] [--database-url URL] [--token-secret HEX]"
                ) { arguments, context in
                    let (options, configuration) = try CommandLineInterface.commandOptions(arguments, context: context, valued: ["url", "tickets", "baseline", "chunk"])
                    guard let tickets = Int(options.options["tickets"] ?? "100000"), tickets > 0,
                        let baseline = Int(options.options["baseline"] ?? "20000"), baseline > 0,
                        let chunk = Int(options.options["chunk"] ?? "10000"), chunk > 0
                    else { throw UsageError("--tickets, --baseline and --chunk must be positive numbers") }
                    let vault = TokenVault(secret: try Application.tokenSecret(configuration))
                    let store = try Application.openStore(configuration, creatingSQLiteFile: true)
                    defer { store.close() }
                    let seed = try WebhookBenchmark.seed(store: store, vault: vault, url: try options.required("url"), tickets: tickets, baseline: baseline, chunk: chunk)
                    context.standardOutput(
                        "secret=\(seed.secret) deliveries=\(seed.deliveries) chunk=\(seed.chunk) "
                            + "import_without_s=\(String(format: "%.3f", seed.withoutWebhooks)) import_with_s=\(String(format: "%.3f", seed.withWebhooks))"
                    )
                    return ExitCode.success
                },
                Command(
                    "webhook-receiver",
                    summary: "Serve a counting webhook receiver on 127.0.0.1:PORT; write its tally into DIR until stopped (bench/webhooks.sh).",
                    usage: "--dir DIR --port PORT [--threads N] [--secret whsec_...]"
                ) { arguments, _ in
                    let options = try OptionParser(arguments, valued: ["dir", "port", "threads", "secret"])
                    guard let port = Int(try options.required("port")), let threads = Int(options.options["threads"] ?? "4"), threads > 0 else {
                        throw UsageError("--port and --threads must be numbers")
                    }
                    try WebhookBenchmark.receive(directory: try options.required("dir"), port: port, threads: threads, secret: options.options["secret"])
                },
                apnsCommand,
            ]
        )
    }
}

extension BenchmarkCommandLine {
    /// Described here for `--help`; run by `apns(_:context:)`, since it drives the async push client.
    static var apnsCommand: Command {
        Command(
            "apns", summary: "Pushes per second through one APNSClient against a fake-apns (bench/apns.sh).",
            usage: "--url https://127.0.0.1:PORT --ca-file ca.pem [--count N] [--connections C] [--concurrency M] "
                + "[--cert-der client.der --key-der client.pk8.der]",
            details: "Prints pushes=N failures=N seconds=S pushes_per_second=N peak_rss_mib=N. Point it only at a fake: every push goes to one token."
        )
    }

    /// `pass-server-bench apns`: parses the options, runs the benchmark, prints one result line.
    static func apns(_ arguments: [String], context: CommandContext) async -> Int32 {
        do {
            let options = try OptionParser(arguments, valued: ["url", "ca-file", "count", "connections", "concurrency", "cert-der", "key-der"])
            func number(_ name: String, _ fallback: Int) throws(UsageError) -> Int {
                let value = try options.number(name, fallback)
                guard value > 0 else { throw UsageError("--\(name) must be a positive number") }
                return value
            }
            func bytes(_ name: String) throws -> [UInt8] {
                guard let path = options.options[name] else { return [] }
                guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read --\(name) \(path)") }
                return Array(data)
            }
            var configuration = APNSConfiguration(clientCertificateDER: try bytes("cert-der"), clientPrivateKeyDER: try bytes("key-der"))
            configuration.url = try options.required("url")
            configuration.caFile = options.options["ca-file"]
            configuration.connections = try number("connections", 1)
            let count = try number("count", 100_000)
            let concurrency = try number("concurrency", 1000)
            let result = try await APNSBenchmark.run(configuration: configuration, count: count, concurrency: concurrency)
            let memory = result.peakMemoryBytes.map { String($0 / 1024 / 1024) } ?? "?"
            context.standardOutput(
                "pushes=\(result.pushes) failures=\(result.failures) seconds=\(String(format: "%.3f", result.seconds)) "
                    + "pushes_per_second=\(Int(result.pushesPerSecond)) peak_rss_mib=\(memory)"
            )
            return ExitCode.success
        } catch {
            return CommandLineInterface.report(error, path: [root.name, apnsCommand.name], usage: apnsCommand.usage, context: context)
        }
    }
}
