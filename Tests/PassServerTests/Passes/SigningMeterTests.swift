import Foundation
import PassServerTesting
import Synchronization
import Testing

@testable import PassServer

/// Signing bounded to its permits, and the figures the push pacing reads.
@Suite("Signing meter: bounded, measured signing", .offCooperativePool, .timeLimit(.minutes(1)))
struct SigningMeterTests {
    @Test("eight threads signing at once never run more builds than the permits; requests, builds and build time are counted")
    func boundedAndCounted() throws {
        let meter = SigningMeter(permits: 2)
        let running = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<8 {
            Thread {
                for _ in 0..<5 {
                    meter.requested()
                    meter.sign {
                        let now = running.add(1, ordering: .sequentiallyConsistent).newValue
                        _ = most.max(now, ordering: .sequentiallyConsistent)
                        usleep(10_000)
                        running.subtract(1, ordering: .sequentiallyConsistent)
                    }
                }
                done.signal()
            }.start()
        }
        for _ in 0..<8 { #expect(done.wait(timeout: .now() + 30) == .success) }
        // Two at once did happen (the bound was reached), three never did.
        #expect(most.load(ordering: .sequentiallyConsistent) == 2)
        let snapshot = meter.snapshot
        #expect(snapshot.requests == 40)
        #expect(snapshot.signed == 40)
        #expect(snapshot.waiting == 0)
        // 40 builds of at least 10 ms each.
        #expect(snapshot.signingSeconds >= 0.4)
    }

    @Test("a build that throws gives its permit back and still counts")
    func throwingBuild() {
        struct Failure: Error {}
        let meter = SigningMeter(permits: 1)
        #expect(throws: Failure.self) { try meter.sign { throw Failure() } }
        // With the only permit leaked this would wait for ever (the suite's time limit).
        #expect(meter.sign { 7 } == 7)
        #expect(meter.snapshot.signed == 2)
    }
}
