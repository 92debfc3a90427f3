// fake-apns: the FakeAPNs server as a process (for h2load, `pass-server-bench apns` and trying
// things out). `usage` below lists the flags.

import FakeAPNs
import Foundation
import Logging
import SystemSupport

let usage = """
    fake-apns: a local stand-in for Apple's push service (HTTP/2 over TLS), for tests, benchmarks and trying things out.

    Usage:
      fake-apns --cert server.pem --key server.key (--client-ca ca.pem | --no-client-auth) [--port N]
                [--max-streams N] [--goaway-after N] [--answer 200|STATUS:Reason] [--print-port] [--log-level LEVEL]
                [--push-log FILE]
      fake-apns --help

    The server listens on 127.0.0.1 (--port 0, the default, picks a free port; --print-port prints it) and answers
    every valid push with --answer (200 by default). Each push it receives is logged on standard error at info
    level, one line with its token's first 8 characters, its topic and the status answered, control characters
    escaped (--log-level warning keeps quiet, as the benchmarks do). --push-log FILE appends
    "<unix ms> <status> <token>" per answered push.
    `pass-server-bench apns` measures the push client against it.

    Exit codes: 0 after --help, 64 for a usage error (unknown option, missing or bad value), 1 when it cannot serve.
    """

/// The options `fake-apns` takes (names without `--`).
let valuedOptions: Set<String> = ["cert", "key", "client-ca", "port", "max-streams", "goaway-after", "answer", "log-level", "push-log"]
let switches: Set<String> = ["no-client-auth", "print-port"]

func integer(_ options: OptionParser, _ name: String, _ fallback: Int) throws(UsageError) -> Int {
    let value = try options.number(name, fallback)
    guard value >= 0 else { throw UsageError("--\(name) must be a non-negative integer") }
    return value
}

func serve(_ options: OptionParser) throws {
    guard let cert = options.options["cert"], let key = options.options["key"] else { throw UsageError("--cert and --key are required") }
    let clientAuth = !options.flags.contains("no-client-auth")
    let clientCA = clientAuth ? options.options["client-ca"] : nil
    if clientAuth && clientCA == nil {
        throw UsageError("give --client-ca (required client certificate) or --no-client-auth")
    }
    var configuration = FakeAPNs.Configuration(certificatePath: cert, privateKeyPath: key, clientCAPath: clientCA)
    configuration.port = UInt16(clamping: try integer(options, "port", 0))
    configuration.maxConcurrentStreams = UInt32(clamping: try integer(options, "max-streams", 1000))
    if options.options["goaway-after"] != nil { configuration.goAwayAfter = try integer(options, "goaway-after", 0) }
    configuration.recordPushes = false
    if let path = options.options["push-log"] {
        let log = try PushLogFile(path: path)
        configuration.onPush = { push in log.append(push) }
    }
    if let answer = options.options["answer"], answer != "200" {
        let parts = answer.split(separator: ":", maxSplits: 1)
        guard let status = parts.first.flatMap({ Int($0) }) else { throw UsageError("--answer is STATUS or STATUS:Reason") }
        configuration.defaultAnswer = .error(status: status, reason: parts.count > 1 ? String(parts[1]) : "")
    }
    let levelName = options.options["log-level"] ?? "info"
    guard let level = LogLevel(name: levelName) else { throw UsageError("--log-level must be one of trace, debug, info, notice, warning, error") }
    let fake = try FakeAPNs(configuration: configuration, logger: Logger(label: "fake-apns", level: level))
    if options.flags.contains("print-port") {
        print(fake.port)
    } else {
        print("fake-apns listening on \(fake.url)")
    }
    fflush(nil)
    while true { sleep(3600) }
}

/// The `--push-log` file: one line per answered push, flushed at once (the process is usually
/// ended by a signal).
// Safe because `append` is only called from the fake's single I/O thread.
final class PushLogFile: @unchecked Sendable {
    private let file: UnsafeMutablePointer<FILE>

    init(path: String) throws {
        guard let file = fopen(path, "a") else { throw UsageError("cannot open --push-log \(path)") }
        self.file = file
    }

    func append(_ push: FakeAPNs.Push) {
        let millis = Int64((push.receivedAt.timeIntervalSince1970 * 1000).rounded())
        fputs("\(millis) \(push.status) \(push.token)\n", file)
        fflush(file)
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}
do {
    try serve(try OptionParser(arguments, valued: valuedOptions, booleans: switches, positionals: false))
} catch let error as UsageError {
    FileHandle.standardError.write(Data("fake-apns: \(error)\n\n\(usage)\n".utf8))
    exit(64)
} catch {
    FileHandle.standardError.write(Data("fake-apns: \(error)\n".utf8))
    exit(1)
}
