import FakeAPNs
import Fleet
import Foundation
import SystemSupport

/// The command line of `fleet`, parsed into a configuration.
struct FleetOptions {
    static let usage = """
        fleet --server http://127.0.0.1:PORT --admin-token TOKEN --phones N
              --apns-cert server.pem --apns-key server-key.pem [--apns-client-ca ca.pem] [--apns-port N]
              [--passes-per-phone K] [--phones-per-pass M] [--connections 64] [--think-time 0-2]
              [--content-sample 0.01] [--signature-sample 0.001 --trust-root root-ca.pem]
              [--retry-base 1] [--retry-max 60] [--request-timeout 30] [--deadline 600]
              [--faulty-phones N] [--failed-fetches 2] [--venue NAME] [--server-pid PID] [--database-pid PID] [--seed N]
              [--before-edit 'SHELL COMMAND'] [--design FILE] [--expect-files NAME,NAME]

        Starts a fake APNs (the server's APNS_URL must point at https://127.0.0.1:<apns-port>), creates
        an event with tickets for N phones through the admin API, downloads and registers every pass,
        PATCHes the venue and reports how soon every phone holds the new pass: human-readable lines,
        then one JSON line. The admin token may also come from FLEET_ADMIN_TOKEN. --before-edit runs
        a command (sh -c) between the setup and the edit, e.g. ANALYZE after a bulk setup. --design
        gives the event a design (a PUT /admin/v1/events/{id}/design body, its images uploaded
        already) before its tickets are issued; --expect-files names files (the design's images)
        every signature-checked pass must hold.
        Exit status: 0 when every phone was updated, 1 when some were left behind, 2 on errors.
        """

    /// Every option `fleet` takes (names without `--`); each takes a value.
    static let valued: Set<String> = [
        "server", "admin-token", "phones", "passes-per-phone", "phones-per-pass", "apns-cert", "apns-key", "apns-client-ca", "apns-port",
        "connections", "think-time", "content-sample", "signature-sample", "trust-root", "design", "expect-files", "retry-base", "retry-max",
        "request-timeout", "deadline", "faulty-phones", "failed-fetches", "seed", "venue", "server-pid", "database-pid", "before-edit",
    ]

    var configuration: FleetConfiguration
    var serverPort: UInt16
    var adminToken: String
    var beforeEdit: String?

    init(_ arguments: [String], environment: [String: String]) throws {
        let options = try OptionParser(arguments, valued: Self.valued, positionals: false)
        let flags = options.options
        func required(_ name: String) throws(UsageError) -> String { try options.required(name) }
        func number<T: LosslessStringConvertible>(_ name: String, _ fallback: T) throws(UsageError) -> T { try options.number(name, fallback) }
        let server = try required("server")
        guard let url = URLComponents(string: server), url.scheme == "http", url.host == "127.0.0.1", let port = url.port,
            let serverPort = UInt16(exactly: port)
        else { throw UsageError("--server must be http://127.0.0.1:PORT (loopback only)") }
        self.serverPort = serverPort
        guard let token = flags["admin-token"] ?? environment["FLEET_ADMIN_TOKEN"] else {
            throw UsageError("--admin-token (or FLEET_ADMIN_TOKEN) is required")
        }
        adminToken = token
        beforeEdit = flags["before-edit"]

        let layout = try FleetLayout(
            phones: try number("phones", 0), passesPerPhone: try number("passes-per-phone", 1), phonesPerPass: try number("phones-per-pass", 1)
        )
        var apns = FakeAPNs.Configuration(
            certificatePath: try required("apns-cert"), privateKeyPath: try required("apns-key"),
            clientCAPath: flags["apns-client-ca"]
        )
        apns.port = try number("apns-port", 0)
        apns.recordPushes = false
        var configuration = FleetConfiguration(layout: layout, apns: apns)
        configuration.connections = try number("connections", configuration.connections)
        if let think = flags["think-time"] {
            let bounds = think.split(separator: "-").compactMap { Double($0) }
            guard bounds.count == 2, bounds[0] <= bounds[1] else { throw UsageError("--think-time is MIN-MAX seconds, e.g. 0-2") }
            configuration.thinkTime = bounds[0]...bounds[1]
        }
        configuration.contentSample = try number("content-sample", configuration.contentSample)
        configuration.signatureSample = try number("signature-sample", configuration.signatureSample)
        configuration.trustRoot = flags["trust-root"]
        if let path = flags["design"] {
            guard let body = FileManager.default.contents(atPath: path) else { throw UsageError("--design: cannot read \(path)") }
            configuration.design = Array(body)
        }
        configuration.expectedFiles = flags["expect-files"]?.split(separator: ",").map(String.init) ?? []
        if configuration.trustRoot == nil { configuration.signatureSample = 0 }
        configuration.retryBase = try number("retry-base", configuration.retryBase)
        configuration.retryMaximum = try number("retry-max", configuration.retryMaximum)
        configuration.requestTimeout = try number("request-timeout", configuration.requestTimeout)
        configuration.deadline = try number("deadline", configuration.deadline)
        configuration.faultyPhones = try number("faulty-phones", 0)
        configuration.failedFetchesPerFaultyPhone = try number("failed-fetches", configuration.failedFetchesPerFaultyPhone)
        configuration.seed = try number("seed", configuration.seed)
        configuration.venue = flags["venue"]
        func processID(_ name: String) throws(UsageError) -> Int32? {
            guard let text = flags[name] else { return nil }
            guard let value = Int32(text), value > 0 else { throw UsageError("--\(name) must be a process id") }
            return value
        }
        configuration.serverPID = try processID("server-pid")
        configuration.databasePID = try processID("database-pid")
        self.configuration = configuration
    }
}
