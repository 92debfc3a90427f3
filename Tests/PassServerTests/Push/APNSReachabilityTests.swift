import Foundation
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Push dispatcher: APNs reachability", .offCooperativePool)
struct APNSReachabilityTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("unreachable from the first connect/TLS failure until any answer; past the grace only after it")
    func outage() {
        var reachability = Reachability()
        #expect(!reachability.exceeds(grace: 60, now: start))
        #expect(reachability.observe(.unreachable("connection refused"), at: start) == .becameUnreachable)
        #expect(reachability.observe(.unreachable("connection refused"), at: start.addingTimeInterval(30)) == nil, "the outage keeps its start")
        #expect(reachability.unreachableSince == start)
        #expect(!reachability.exceeds(grace: 60, now: start.addingTimeInterval(59)))
        #expect(reachability.exceeds(grace: 60, now: start.addingTimeInterval(61)))
        // A lost connection or a timeout means APNs was reached: no change either way.
        #expect(reachability.observe(.transportFailure("timeout"), at: start.addingTimeInterval(62)) == nil)
        #expect(reachability.observe(.logged, at: start.addingTimeInterval(62)) == nil)
        #expect(reachability.exceeds(grace: 60, now: start.addingTimeInterval(63)))
        // Any HTTP answer, even an error, proves APNs is reachable.
        #expect(reachability.observe(.answered(status: 503, reason: .serviceUnavailable, timestamp: nil), at: start.addingTimeInterval(90)) == .recovered(after: 90))
        #expect(reachability.unreachableSince == nil)
        #expect(!reachability.exceeds(grace: 60, now: start.addingTimeInterval(1_000)))
    }

    @Test("answers and transport failures while reachable change nothing")
    func steady() {
        var reachability = Reachability()
        #expect(reachability.observe(.answered(status: 200, reason: nil, timestamp: nil), at: start) == nil)
        #expect(reachability.observe(.transportFailure("stream reset"), at: start) == nil)
        #expect(reachability.unreachableSince == nil)
    }
}
