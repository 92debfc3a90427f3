import Foundation
import PassServerTesting
import Synchronization
import Testing

@testable import PassServer

@Suite("Readiness report", .offCooperativePool)
struct ReadinessTests {
    @Test("standing problems and warnings are set and cleared per component; checks run on every evaluation")
    func findings() {
        let readiness = Readiness()
        #expect(readiness.evaluate().isEmpty)
        readiness.report("apns", problem: "halted")
        readiness.warn("certificates", warning: "expires in 12 days")
        readiness.report("apns", problem: "halted again")
        let calls = CallCounter()
        readiness.addCheck {
            calls.increment()
            return [Readiness.Finding(severity: .problem, component: "zeta", message: "checked")]
        }
        let first = readiness.evaluate()
        #expect(first == [
            Readiness.Finding(severity: .problem, component: "apns", message: "halted again"),
            Readiness.Finding(severity: .warning, component: "certificates", message: "expires in 12 days"),
            Readiness.Finding(severity: .problem, component: "zeta", message: "checked"),
        ])
        readiness.report("apns", problem: nil)
        readiness.warn("certificates", warning: nil)
        #expect(readiness.evaluate() == [Readiness.Finding(severity: .problem, component: "zeta", message: "checked")])
        #expect(calls.count == 2)
    }
}

/// Counts calls from a `@Sendable` closure.
final class CallCounter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
