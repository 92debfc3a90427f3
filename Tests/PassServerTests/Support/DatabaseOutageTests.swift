import Foundation
import Logging
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The background loops' outage bookkeeping: backoff, and one log line per change of state.
@Suite("Database outage backoff", .offCooperativePool)
struct DatabaseOutageTests {
    @Test func backsOffByDoublingUpToTheMaximumAndResetsAfterRecovery() {
        var outage = DatabaseOutage(initialDelay: 0.25, maximumDelay: 5)
        let start = Date(timeIntervalSince1970: 1_000)
        let delays = (0..<8).map { outage.failed(at: start.addingTimeInterval(Double($0))).retryIn }
        #expect(delays == [0.25, 0.5, 1, 2, 4, 5, 5, 5])
        #expect(outage.since == start)
        #expect(outage.recovered(at: start.addingTimeInterval(12)) == 12)
        #expect(outage.since == nil)
        #expect(outage.recovered(at: start.addingTimeInterval(13)) == nil)
        let again = outage.failed(at: start.addingTimeInterval(20))
        #expect(again.began)
        #expect(again.retryIn == 0.25)
    }

    @Test func onlyTheFirstFailureBeginsAnOutage() {
        var outage = DatabaseOutage()
        let now = Date()
        #expect(outage.failed(at: now).began)
        #expect(!outage.failed(at: now).began)
        #expect(!outage.failed(at: now).began)
    }

    @Test func logsOncePerChangeOfState() {
        let sink = MemorySink()
        let logger = Logger(label: "loop", sink: sink)
        var outage = DatabaseOutage()
        let error = StorageError(.unavailable, "PostgreSQL is unavailable")
        for second in 0..<20 {
            _ = outage.failed(error, at: Date(timeIntervalSince1970: Double(second)), logger: logger, waiting: "waiting for the database")
        }
        outage.recovered(at: Date(timeIntervalSince1970: 30), logger: logger, resumed: "resumed")
        outage.recovered(at: Date(timeIntervalSince1970: 31), logger: logger, resumed: "resumed")
        #expect(sink.lines.filter { $0.contains("waiting for the database") }.count == 1)
        #expect(sink.lines.filter { $0.contains("resumed") }.count == 1)
        #expect(sink.lines.contains { $0.contains("resumed") && $0.contains("30.0") })
    }

    @Test func onlyTransientStorageErrorsAreOutages() {
        #expect(DatabaseOutage.isOutage(StorageError(.unavailable, "down")))
        #expect(DatabaseOutage.isOutage(StorageError(.timeout, "busy")))
        #expect(!DatabaseOutage.isOutage(StorageError(.conflict, "dup")))
        #expect(!DatabaseOutage.isOutage(CancellationError()))
    }
}
