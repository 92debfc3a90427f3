import Foundation
import PassIdentifiers
import PassServerTesting
import Synchronization
import Testing

@testable import PassServer

/// `BundleCache` split into shards: the byte budget still holds in all, every key is found where
/// it was put, and one signing per key however many threads ask at once.
@Suite("Bundle cache shards", .offCooperativePool, .timeLimit(.minutes(1)))
struct BundleCacheShardTests {
    static func key(_ index: Int) -> BundleKey {
        BundleKey(passTypeIdentifier: PassTypeIdentifier("pass.com.example.shards"), serialNumber: SerialNumber("S\(index)"), revision: 1)
    }

    @Test("a large cache keeps under its budget and keeps what was put last")
    func budget() throws {
        let budget = 64 << 20
        let cache = BundleCache<[UInt8]>(maxBytes: budget)
        let entry = 16 << 10
        // Two and a half budgets' worth: every shard turns its generations over.
        for index in 0..<(budget * 5 / 2 / entry) {
            _ = try cache.bundle(for: Self.key(index)) { [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: entry) }
        }
        let statistics = cache.statistics
        #expect(statistics.entries * entry <= budget, "\(statistics.entries) entries of \(entry) bytes")
        #expect(statistics.entries * entry >= budget / 4, "most of the budget is used: \(statistics.entries) entries")
        let last = budget * 5 / 2 / entry - 1
        #expect(cache.cached(Self.key(last)) == [UInt8](repeating: UInt8(truncatingIfNeeded: last), count: entry))
        #expect(cache.cached(Self.key(0)) == nil, "the first entries gave way")
    }

    @Test("many threads asking for the same keys at once sign each key once")
    func singleFlight() {
        let cache = BundleCache<[UInt8]>(maxBytes: 64 << 20)
        let made = Mutex([Int: Int]())
        let group = DispatchGroup()
        for thread in 0..<16 {
            group.enter()
            Thread {
                for index in 0..<64 {
                    let key = (index + thread) % 64
                    _ = try? cache.bundle(for: Self.key(key)) {
                        made.withLock { $0[key, default: 0] += 1 }
                        Thread.sleep(forTimeInterval: 0.001)
                        return [UInt8(key)]
                    }
                }
                group.leave()
            }.start()
        }
        group.wait()
        #expect(made.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<64).map { ($0, 1) }))
        #expect(cache.statistics.misses == 64, "one miss a key, in whichever shard")
    }
}
