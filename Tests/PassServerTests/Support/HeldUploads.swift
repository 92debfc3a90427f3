import Dispatch
import Foundation
import PassServerTesting
import Synchronization
import Testing

/// Uploads held open with their last byte missing, and the server's resident memory: what a
/// client that makes the server buffer bodies looks like, and the measure of what it costs.
enum HeldUploads {
    /// Resident memory of a process (`VmRSS`), or its peak so far (`VmHWM`), from /proc/PID/status.
    static func residentKiB(_ pid: Int32, peak: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let key = peak ? "VmHWM:" : "VmRSS:"
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(key) }, sourceLocation: sourceLocation)
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]), sourceLocation: sourceLocation)
    }

    /// One held upload per entry of `heads` (each a whole request head that declares `bodySize`
    /// bytes and `Expect: 100-continue`), connection `i` from `sources[i % sources.count]`: sends
    /// every head and reads the first answers, then sends every body but its last byte, all at
    /// once, and keeps the connections open. Returns the first answers, how many bodies were
    /// fully written, and the connections.
    static func allButTheLastByte(
        port: Int, heads: [String], bodySize: Int, sources: [String] = ["127.0.0.1"]
    ) throws -> (answers: [TestResponse?], written: Int, connections: [TestClient]) {
        let connections = try heads.indices.map { try TestClient(port: port, timeout: 20, source: sources[$0 % sources.count]) }
        for (connection, head) in zip(connections, heads) { connection.send(head) }
        let answers = connections.map { try? $0.readResponse() }

        let body = [UInt8](repeating: 0x20, count: bodySize - 1)
        let written = Atomic<Int>(0)
        // Each connection is used by exactly one of the concurrent iterations.
        nonisolated(unsafe) let shared = connections
        DispatchQueue.concurrentPerform(iterations: shared.count) { index in
            if shared[index].send(body) { written.add(1, ordering: .relaxed) }
        }
        return (answers, written.load(ordering: .relaxed), connections)
    }
}
