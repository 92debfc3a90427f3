// A small load generator for `pass-server-bench storage`: the two device-API queries that run
// most often, driven from plain threads (not the cooperative pool) against a migrated store.

import Foundation
import PassIdentifiers
public import Storage
import Synchronization

/// Measures store throughput for the device API's hot paths.
public enum StorageBenchmark {
    /// What to measure.
    public enum Operation: String, Sendable, CaseIterable {
        /// `upsertRegistration` for distinct devices (a write transaction each).
        case registrations
        /// `serials(deviceLibraryIdentifier:passTypeIdentifier:updatedAfter:)` (one read each).
        case changedSerials = "changed-serials"
    }

    /// The outcome of one run.
    public struct Result: Sendable, CustomStringConvertible {
        public var operation: Operation
        public var operations: Int
        public var threads: Int
        public var seconds: Double
        public var operationsPerSecond: Double { seconds > 0 ? Double(operations) / seconds : 0 }

        /// `| store | backend | operation | threads | N ops/s |`, for `bench/storage.sh`.
        public func markdownRow(backend: StorageBackend) -> String {
            "| store | \(backend.rawValue) | \(operation.rawValue) | \(threads) | \(Int(operationsPerSecond)) ops/s |"
        }

        public var description: String {
            "\(operation.rawValue): \(operations) ops on \(threads) threads in \(String(format: "%.2f", seconds)) s = \(Int(operationsPerSecond)) ops/s"
        }
    }

    /// Migrates `store`, creates 100 passes of a benchmark pass type, then runs `count`
    /// operations spread over `threads` threads. For `.changedSerials`, the devices are
    /// registered first (not timed).
    public static func run(store: any Store, operation: Operation, count: Int, threads: Int) throws -> Result {
        try store.migrate()
        let passCount = 100
        let run = String(UUID().uuidString.prefix(8)).lowercased()
        let passType: PassTypeIdentifier = try identifier("pass.bench." + run)
        // Serial numbers, devices and push tokens by index, made once, as the device API hands them to the store.
        let serials: [SerialNumber] = try (0..<passCount).map { try identifier("S\($0)") }
        let devices: [DeviceLibraryIdentifier] = try (0..<count).map { try identifier("\(run)-device-\($0)") }
        let tokens: [PushToken] = try (0..<count).map { try identifier(String(format: "%064x", $0)) }
        let now = Date()
        try store.withSession(.write) { session in
            for index in 0..<passCount {
                _ = try session.passes.insertPass(NewPass(
                    passTypeIdentifier: passType, serialNumber: serials[index],
                    authenticationTokenHash: Array("auth\(index)".utf8), downloadTokenHash: Array("\(passType)-\(index)".utf8),
                    attendeeName: "Bench \(index)"
                ), now: now)
            }
        }
        @Sendable func register(_ index: Int) throws {
            _ = try store.withSession(.write) {
                try $0.registrations.upsertRegistration(
                    deviceLibraryIdentifier: devices[index], pushToken: tokens[index],
                    passTypeIdentifier: passType, serialNumber: serials[index % passCount], now: now
                )
            }
        }
        if operation == .changedSerials {
            for index in 0..<min(count, 1000) { try register(index) }
        }
        let work: @Sendable (Int) throws -> Void = { index in
            switch operation {
            case .registrations: try register(index)
            case .changedSerials:
                _ = try store.withSession(.read) {
                    try $0.registrations.serials(
                        deviceLibraryIdentifier: devices[index % min(count, 1000)],
                        passTypeIdentifier: passType, updatedAfter: 0
                    )
                }
            }
        }
        let seconds = try runOnThreads(count: count, threads: max(threads, 1), work)
        return Result(operation: operation, operations: count, threads: max(threads, 1), seconds: seconds)
    }

    /// An identifier the benchmark makes up, checked as input is.
    private static func identifier<Identifier: ValidatedIdentifier>(_ raw: String) throws -> Identifier {
        guard let identifier = Identifier(raw) else { throw StorageError(.invalidValue, "not a valid \(Identifier.self): \(raw)") }
        return identifier
    }

    /// Runs `work(0..<count)` on `threads` dedicated threads; returns the wall time in seconds.
    static func runOnThreads(count: Int, threads: Int, _ work: @escaping @Sendable (Int) throws -> Void) throws -> Double {
        let next = Atomic<Int>(0)
        let firstError = Mutex<(any Error)?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let start = DispatchTime.now()
        for _ in 0..<threads {
            let thread = Thread {
                while true {
                    let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    if index >= count { break }
                    do { try work(index) } catch {
                        firstError.withLock { if $0 == nil { $0 = error } }
                        break
                    }
                }
                finished.signal()
            }
            thread.start()
        }
        for _ in 0..<threads { finished.wait() }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        if let error = firstError.withLock({ $0 }) { throw error }
        return elapsed
    }
}
