import Foundation
import PassServerTesting
import Testing

@testable import PassServer

/// The pacing controller, fed by hand: no sockets, no clock.
@Suite("Push pacer: pushes paced by the phones' fetches", .offCooperativePool)
struct PushPacerTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let settings = PushPacer.Settings(lead: 2, horizon: 10, quiet: 2, minimumWindow: 100, period: 0.5, remembered: 6)

    /// Two permits that each build a bundle in 4 ms: 500 bundles/s alone, so the rate is at least
    /// 250/s and the window at least 500 pushes.
    func pacer() -> PushPacer {
        var pacer = PushPacer(settings: settings, permits: 2)
        pacer.observe(SigningMeter.Snapshot(requests: 0, signed: 1_000, signingSeconds: 4), now: start)
        return pacer
    }

    func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    /// A meter reading after `requests` bundle requests, each one built in 4 ms.
    func meter(_ requests: Int) -> SigningMeter.Snapshot {
        SigningMeter.Snapshot(requests: requests, signed: 1_000 + requests, signingSeconds: 4 + Double(requests) * 0.004)
    }

    @Test("with no phone fetching, pushes are not held back at all (the pushes-alone case)")
    func unpacedWithoutFetches() {
        var pacer = pacer()
        #expect(pacer.allowance(now: at(0)) == nil)
        pacer.sent(100_000, now: at(0.1))
        pacer.observe(meter(0), now: at(1))
        #expect(pacer.allowance(now: at(1)) == nil)
    }

    @Test("once phones fetch, at most rate × lead pushes are outstanding; each bundle request frees one")
    func windowFollowsFetches() {
        var pacer = pacer()
        #expect(pacer.rate == 250)
        #expect(pacer.window == 500)
        pacer.sent(400, now: at(0))
        pacer.observe(meter(10), now: at(0.1))
        #expect(pacer.outstandingCount == 390)
        #expect(pacer.allowance(now: at(0.1)) == 110)
        pacer.sent(110, now: at(0.1))
        #expect(pacer.allowance(now: at(0.15)) == 0)
        pacer.observe(meter(110), now: at(0.3))
        #expect(pacer.allowance(now: at(0.3)) == 100)
        // Requests beyond the pushes outstanding (a phone holding two passes) free nothing more.
        pacer.observe(meter(5_000), now: at(0.4))
        #expect(pacer.outstandingCount == 0)
        #expect(pacer.allowance(now: at(0.4)) == 500)
    }

    @Test("paced pushes leave in steps of a tenth of the window: less room than that is none yet")
    func stepsOfATenth() {
        var pacer = pacer()
        #expect(pacer.window == 500)
        #expect(pacer.step == 50)
        pacer.sent(500, now: at(0))
        pacer.observe(meter(49), now: at(0.1))
        #expect(pacer.outstandingCount == 451)
        #expect(pacer.allowance(now: at(0.1)) == 0, "49 free of a window of 500")
        pacer.observe(meter(50), now: at(0.2))
        #expect(pacer.allowance(now: at(0.2)) == 50)
    }

    @Test("the rate is the mean of the remembered periods of bundles served")
    func rateFromServedBundles() {
        var pacer = pacer()
        var requests = 0
        var time = 0.0
        func serve(_ perTenth: Int, periods: Int) {
            for _ in 0..<(periods * 5) {
                requests += perTenth
                time += 0.1
                pacer.observe(meter(requests), now: at(time))
            }
        }
        serve(80, periods: 3)
        #expect(abs(pacer.rate - 800) < 1)
        #expect(abs(Double(pacer.window) - 1_600) < 2)
        serve(150, periods: 3)
        #expect(abs(pacer.rate - 1_150) < 1)
        // Six periods later the fast ones are forgotten.
        serve(80, periods: 6)
        #expect(abs(pacer.rate - 800) < 1)
    }

    @Test("phones slower than the lead bring few fetches, yet the rate never falls below half the permits' own")
    func floorAgainstSlowPhones() {
        var pacer = pacer()
        var requests = 0
        for step in 1...40 {
            // Two fetches per 0.1 s: 20/s measured.
            requests += 2
            pacer.observe(meter(requests), now: at(Double(step) * 0.1))
        }
        #expect(pacer.rates.allSatisfy { abs($0 - 20) < 1 })
        #expect(abs(pacer.rate - 250) < 0.01)
        #expect(pacer.window == 500)
    }

    @Test("a push no fetch answers within the horizon stops counting; a quiet spell lifts pacing")
    func horizonAndQuiet() {
        var pacer = pacer()
        pacer.sent(500, now: at(0))
        pacer.observe(meter(50), now: at(0.2))
        #expect(pacer.allowance(now: at(0.2)) == 50)
        pacer.sent(50, now: at(0.2))
        // At 10.5 s every push has aged out, and the last request (0.2 s) is long past the quiet spell.
        #expect(pacer.allowance(now: at(10.5)) == nil)
        #expect(pacer.outstandingCount == 0)
        // A phone fetches again: pacing is back.
        pacer.observe(meter(51), now: at(10.6))
        #expect(pacer.allowance(now: at(10.6)) == 500)
    }

    @Test("the floor follows the measured build time: builds slowed by busy cores lower it")
    func floorFollowsBuilds() {
        var pacer = pacer()
        for step in 1...20 {
            // Builds now take 8 ms each; no phone fetches.
            pacer.observe(SigningMeter.Snapshot(requests: 0, signed: 1_000 + step * 100, signingSeconds: 4 + Double(step) * 0.8), now: at(Double(step) * 0.05))
        }
        #expect(abs(pacer.buildSeconds - 0.008) < 0.0002)
        #expect(abs(pacer.rate - 125) < 5)
        #expect(abs(Double(pacer.window) - 250) < 10)
    }
}
