import Benchmarks
import Foundation
import PassServerTesting
import Storage
import Testing

@Suite("Storage benchmark driver", .offCooperativePool, .timeLimit(.minutes(4)))
struct StorageBenchmarkTests {
    @Test(arguments: ["postgres", "sqlite"])
    func runsBothOperations(_ backend: String) throws {
        let url = try Self.scratchURL(backend)
        defer { Self.remove(url) }
        let store = try openStore(url: url, options: StoreOptions())
        defer { store.close() }
        let count = Int(ProcessInfo.processInfo.environment["STORAGE_BENCH_TEST_COUNT"] ?? "") ?? 200
        for operation in StorageBenchmark.Operation.allCases {
            let result = try StorageBenchmark.run(store: store, operation: operation, count: count, threads: 4)
            #expect(result.operations == count)
            #expect(result.operationsPerSecond > 0)
            #expect(result.markdownRow(backend: store.backend).hasPrefix("| store | \(backend) |"))
        }
        // The registrations run registered `count` distinct devices.
        let devices = try store.execute("SELECT count(*) AS n FROM devices").first?.int("n")
        #expect(devices == count + min(count, 1000))
    }

    /// A new, empty database of `backend`: a PostgreSQL database or an SQLite file in a temp directory.
    static func scratchURL(_ backend: String) throws -> String {
        backend == "postgres"
            ? try TestPostgres.createDatabase()
            : "sqlite://" + (try TestCertificates.temporaryDirectory(prefix: "storage-bench")) + "/bench.db"
    }

    static func remove(_ url: String) {
        if url.hasPrefix("sqlite://") {
            try? FileManager.default.removeItem(atPath: String(url.dropFirst("sqlite://".count).dropLast("/bench.db".count)))
        } else {
            try? TestPostgres.dropDatabase(url: url)
        }
    }
}
