import Foundation
import PassServerTesting
import Storage
import Testing

@Suite("Storage benchmark driver", .offCooperativePool)
struct StorageBenchmarkTests {
    @Test(arguments: Backend.allCases)
    func runsBothOperations(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let count = Int(ProcessInfo.processInfo.environment["STORAGE_BENCH_TEST_COUNT"] ?? "") ?? 200
        for operation in StorageBenchmark.Operation.allCases {
            let result = try StorageBenchmark.run(store: fixture.store, operation: operation, count: count, threads: 4)
            #expect(result.operations == count)
            #expect(result.operationsPerSecond > 0)
            #expect(result.markdownRow(backend: fixture.store.backend).hasPrefix("| store | \(backend.rawValue) |"))
        }
        // The registrations run registered `count` distinct devices.
        let devices = try fixture.store.execute("SELECT count(*) AS n FROM devices").first?.int("n")
        #expect(devices == count + min(count, 1000))
    }
}
