import Foundation
import Testing

@testable import PassServer

/// The pacing controller, fed by hand: no sockets, no clock.
@Suite("Push pacer: pushes paced by the phones' fetches")
struct PushPacerTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let settings = PushPacer.Settings(lead: 2, maximumLead: 60, horizon: 10, quiet: 2, minimumWindow: 100, adjustInterval: 0.5)

    /// Two permits that each build a bundle in 1 ms: 2,000 bundles/s, a window of 4,000 pushes.
    func pacer() -> PushPacer {
        var pacer = PushPacer(settings: settings, permits: 2)
        pacer.observe(SigningMeter.Snapshot(requests: 0, signed: 1_000, signingSeconds: 1), now: start)
        return pacer
    }

    func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    @Test("with no phone fetching, pushes are not held back at all (the pushes-alone case)")
    func unpacedWithoutFetches() {
        var pacer = pacer()
        #expect(pacer.allowance(now: at(0)) == nil)
        pacer.sent(100_000, now: at(0.1))
        pacer.observe(SigningMeter.Snapshot(requests: 0, signed: 1_000, signingSeconds: 1), now: at(1))
        #expect(pacer.allowance(now: at(1)) == nil)
    }

    @Test("once phones fetch, at most capacity × lead pushes are outstanding; each fetch frees one")
    func windowFollowsFetches() {
        var pacer = pacer()
        #expect(pacer.capacity == 2_000)
        #expect(pacer.window == 4_000)
        pacer.sent(3_000, now: at(0))
        pacer.observe(SigningMeter.Snapshot(requests: 10, signed: 1_010, signingSeconds: 1.01), now: at(0.1))
        #expect(pacer.outstandingCount == 2_990)
        #expect(pacer.allowance(now: at(0.1)) == 1_010)
        pacer.sent(1_010, now: at(0.1))
        #expect(pacer.allowance(now: at(0.15)) == 0)
        pacer.observe(SigningMeter.Snapshot(requests: 510, signed: 1_510, signingSeconds: 1.51), now: at(0.4))
        #expect(pacer.allowance(now: at(0.4)) == 500)
        // Fetches beyond the pushes outstanding (a phone holding two passes) free nothing more.
        pacer.observe(SigningMeter.Snapshot(requests: 50_000, signed: 2_010, signingSeconds: 2.01), now: at(0.5))
        #expect(pacer.outstandingCount == 0)
        #expect(pacer.allowance(now: at(0.5)) == 4_000)
    }

    @Test("a push no fetch answers within the horizon stops counting; a quiet spell lifts pacing")
    func horizonAndQuiet() {
        var pacer = pacer()
        pacer.sent(4_000, now: at(0))
        pacer.observe(SigningMeter.Snapshot(requests: 1, signed: 1_000, signingSeconds: 1), now: at(1))
        #expect(pacer.allowance(now: at(1)) == 1)
        pacer.sent(1, now: at(1))
        pacer.observe(SigningMeter.Snapshot(requests: 2, signed: 1_000, signingSeconds: 1), now: at(2.9))
        #expect(pacer.allowance(now: at(2.9)) == 1)
        // At 10.5 s the pushes of 0 s have aged out; the fetch at 2.9 s is long past the quiet spell.
        #expect(pacer.allowance(now: at(10.5)) == nil)
        #expect(pacer.outstandingCount == 1)
        pacer.observe(SigningMeter.Snapshot(requests: 3, signed: 1_000, signingSeconds: 1), now: at(10.6))
        #expect(pacer.allowance(now: at(10.6)) == 4_000)
    }

    @Test("the build time follows the measured builds, so the window follows the signing rate")
    func capacityFollowsBuilds() {
        var pacer = pacer()
        for step in 1...20 {
            // Builds now take 4 ms each (the cores are shared with something else).
            let signed = 1_000 + step * 100
            pacer.observe(SigningMeter.Snapshot(requests: step, signed: signed, signingSeconds: 1 + Double(step) * 0.4), now: at(Double(step) * 0.05))
        }
        #expect(abs(pacer.buildSeconds - 0.004) < 0.0001)
        #expect(abs(pacer.capacity - 500) < 15)
        #expect(abs(Double(pacer.window) - 1_000) < 30)
    }

    @Test("with the window full and the permits idle the lead grows; with them busy it shrinks back")
    func leadAdapts() {
        var pacer = pacer()
        pacer.sent(4_000, now: at(0))
        var requests = 0
        var signingSeconds = 1.0
        // Phones trickle in (1 fetch per 0.1 s): the permits sit idle while the window is full.
        for step in 1...10 {
            requests += 1
            signingSeconds += 0.001
            let time = at(Double(step) * 0.1)
            pacer.observe(SigningMeter.Snapshot(requests: requests, signed: 1_000 + requests, signingSeconds: signingSeconds), now: time)
            pacer.sent(pacer.allowance(now: time) ?? 0, now: time)
            #expect(pacer.allowance(now: time) == 0)
        }
        #expect(pacer.lead > 2)
        let grown = pacer.lead
        // Now the permits are busy all the time: the lead falls back, never below the setting.
        for step in 11...60 {
            requests += 200
            signingSeconds += 0.2
            pacer.observe(SigningMeter.Snapshot(requests: requests, signed: 1_000 + requests, signingSeconds: signingSeconds), now: at(Double(step) * 0.1))
            _ = pacer.allowance(now: at(Double(step) * 0.1))
        }
        #expect(pacer.lead < grown)
        #expect(pacer.lead == 2)
    }
}
