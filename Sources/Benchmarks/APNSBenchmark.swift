// A push-throughput benchmark for APNSClient, behind `pass-server-bench apns`.

public import APNs
import Foundation
public import Logging
import PassIdentifiers
import Synchronization
import SystemSupport

/// Sends many pushes through one APNSClient as fast as the server answers, and reports the rate.
public enum APNSBenchmark {
    /// What one run measured.
    public struct Result: Sendable {
        public var pushes: Int
        /// Pushes answered with a status other than 200, or failed.
        public var failures: Int
        public var seconds: Double
        public var pushesPerSecond: Double { seconds > 0 ? Double(pushes) / seconds : 0 }
        /// Peak resident memory of this process (VmHWM), bytes; nil where /proc is not available.
        public var peakMemoryBytes: Int?
    }

    /// The one token every push goes to (a fake does not care; do not point this at Apple).
    static let pushToken = PushToken(trusted: String(repeating: "ab", count: 32))
    static let topic = PassTypeIdentifier(trusted: "pass.com.example.bench")

    /// Sends `count` pushes to `configuration.url` with `concurrency` callers in flight at once,
    /// all to `pushToken`.
    public static func run(
        configuration: APNSConfiguration, count: Int, concurrency: Int,
        logger: Logger = Logger(label: "apns-bench", level: .warning)
    ) async throws -> Result {
        let client = try APNSClient(configuration: configuration, logger: logger)
        defer { client.shutdown() }
        // One warm-up push opens the connections' first handshake outside the timed part.
        _ = try await client.send(APNSRequest(pushToken: pushToken, topic: topic))
        let tally = Tally()
        let request = APNSRequest(pushToken: pushToken, topic: topic)
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, concurrency) {
                group.addTask {
                    while tally.next.add(1, ordering: .relaxed).oldValue < count {
                        let ok = (try? await client.send(request).status) == 200
                        if !ok { tally.failures.add(1, ordering: .relaxed) }
                    }
                }
            }
        }
        let elapsed = ContinuousClock.now - start
        let seconds = elapsed.timeInterval
        return Result(pushes: count, failures: tally.failures.load(ordering: .relaxed), seconds: seconds, peakMemoryBytes: peakMemory())
    }

    /// Counters shared by the benchmark's sender tasks.
    private final class Tally: Sendable {
        let next = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
    }

    /// Convenience for tests: benchmark against `url` (a fake; empty identity
    /// unless the fake asks for a client certificate).
    public static func run(
        url: String, count: Int, connections: Int, concurrency: Int = 1000, caFile: String? = nil,
        clientCertificateDER: [UInt8] = [], clientPrivateKeyDER: [UInt8] = []
    ) async throws -> Result {
        var configuration = APNSConfiguration(clientCertificateDER: clientCertificateDER, clientPrivateKeyDER: clientPrivateKeyDER)
        configuration.url = url
        configuration.caFile = caFile
        configuration.connections = connections
        return try await run(configuration: configuration, count: count, concurrency: concurrency)
    }

    /// VmHWM from /proc/self/status.
    static func peakMemory() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }
}
