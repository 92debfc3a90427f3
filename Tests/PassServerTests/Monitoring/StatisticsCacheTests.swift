import PassServerTesting
import Storage
import Testing

@testable import PassServer

@Suite("Statistics cache", .offCooperativePool)
struct StatisticsCacheTests {
    static func statistics(_ registrations: Int) -> StoreStatistics {
        StoreStatistics(
            registrations: registrations, devices: 0, oldestPendingPush: nil, jobs: [:], unfinishedJobPasses: 0, unfinishedJobPassesDone: 0
        )
    }

    @Test("counts are read once per period, and a failed read is not cached")
    func period() throws {
        var reads = 0
        let cache = StatisticsCache(ttl: .seconds(3_600))
        struct Unreachable: Error {}
        #expect(throws: Unreachable.self) { try cache.value { throw Unreachable() } }
        for _ in 0..<3 {
            let value = cache.value {
                reads += 1
                return Self.statistics(reads)
            }
            #expect(value.registrations == 1)
        }
        #expect(reads == 1)

        let uncached = StatisticsCache(ttl: .zero)
        for expected in 1...3 {
            #expect(uncached.value { Self.statistics(expected) }.registrations == expected)
        }
    }
}
