import Foundation
import Logging

/// Paces pushes so phones arrive at the rate this process serves their passes: pure, fed with
/// the signing meter's totals and the pushes sent, tested without sockets.
///
/// Every push makes a phone fetch a pass that must be signed. Pushing faster than passes are
/// served only moves the wait from the outbox (where it costs nothing) to the phones' fetches
/// (where Wallet times out and backs off). So the pacer keeps at most a window of pushes
/// *outstanding* (sent, not yet answered by a bundle request), the window being `rate × lead`:
/// `rate` is how many bundles this process serves per second (the mean of the last few periods:
/// measured, because signing shares the cores with HTTP, PostgreSQL and anything else, so what the
/// signing permits could do alone overstates it two to four times), `lead` how many seconds of it
/// may be pushed ahead (the phones' time from push to fetch, plus a short queue).
///
/// - A bundle request answers the oldest outstanding push (first in, first out). A push no request
///   answers within `horizon` stops counting: that phone is off, or fetched from another instance.
/// - With no bundle requested for `quiet`, phones are not fetching (or pushes go to tokens whose
///   phones never call back): pushes are not held back at all. The first pushes of a storm go
///   out at full speed until the first phones answer, which primes the rate.
/// - The rate never counts lower than half of what the signing permits sign alone (permits ÷ mean
///   build time, which also stretches when the cores are busy). Without that floor, phones slower
///   than the lead would bring fewer fetches each period, a lower measured rate, a smaller window
///   and fewer fetches again, down to nothing. With it, such phones make the pacing conservative
///   (the server is not kept busy), never stuck; pushes nobody answers age out after `horizon`.
struct PushPacer: Sendable {
    struct Settings: Sendable, Equatable {
        var lead: TimeInterval = 2
        var horizon: TimeInterval = 10
        var quiet: TimeInterval = 2
        /// The smallest window, whatever the measured rate.
        var minimumWindow = 100
        /// How long one measuring period of the rate lasts.
        var period: TimeInterval = 0.5
        /// How many past periods the rate remembers (their mean is used).
        var remembered = 6
    }

    let settings: Settings
    let permits: Int
    /// Mean seconds to build one bundle on one permit.
    private(set) var buildSeconds: Double
    /// Bundles served per second in the last periods, newest last.
    private(set) var rates: [Double] = []
    private var outstanding = OutstandingPushes()
    private var lastRequestAt: Date?
    private var last: SigningMeter.Snapshot?
    private var current: Period?

    /// What one measuring period has seen so far.
    private struct Period: Sendable {
        var start: Date
        var requests = 0
    }

    init(settings: Settings = Settings(), permits: Int, buildSeconds: Double = 0.002) {
        self.settings = settings
        self.permits = max(1, permits)
        self.buildSeconds = buildSeconds
    }

    /// Bundles served per second: the mean of the recent periods, and at least half what the
    /// permits sign alone.
    var rate: Double { max(rates.isEmpty ? 0 : rates.reduce(0, +) / Double(rates.count), floorRate) }

    /// Half of what the signing permits sign per second alone.
    var floorRate: Double { Double(permits) / max(buildSeconds, 1e-6) / 2 }

    /// The most pushes that may be outstanding.
    var window: Int { max(settings.minimumWindow, Int((rate * settings.lead).rounded())) }

    /// Pushes sent and not yet answered (nor aged out).
    var outstandingCount: Int { outstanding.total }

    /// Takes the meter's totals into account: new bundle requests answer outstanding pushes and
    /// count towards the rate, new builds refine the build time.
    mutating func observe(_ meter: SigningMeter.Snapshot, now: Date) {
        guard let previous = last else {
            last = meter
            if meter.signed > 0 { buildSeconds = meter.signingSeconds / Double(meter.signed) }
            current = Period(start: now)
            return
        }
        last = meter
        let requests = meter.requests - previous.requests
        if requests > 0 {
            outstanding.answer(requests)
            lastRequestAt = now
        }
        let signed = meter.signed - previous.signed
        let busySeconds = max(0, meter.signingSeconds - previous.signingSeconds)
        if signed > 0 {
            buildSeconds = 0.7 * buildSeconds + 0.3 * (busySeconds / Double(signed))
        }
        var period = current ?? Period(start: now)
        period.requests += requests
        let elapsed = now.timeIntervalSince(period.start)
        if elapsed >= settings.period {
            close(period, elapsed: elapsed)
            period = Period(start: now)
        }
        current = period
    }

    /// Ends a measuring period: its rate joins the remembered ones (only periods in which phones
    /// fetched: a quiet period says nothing about how fast passes can be served).
    private mutating func close(_ period: Period, elapsed: TimeInterval) {
        guard period.requests > 0 else { return }
        rates.append(Double(period.requests) / elapsed)
        if rates.count > settings.remembered { rates.removeFirst(rates.count - settings.remembered) }
    }

    /// `count` pushes just left.
    mutating func sent(_ count: Int, now: Date) {
        outstanding.add(count, at: now)
    }

    /// How many more pushes may leave now; nil while phones are not fetching. Pushes leave in
    /// steps of at least a tenth of the window (`step`): every claim walks the outbox's index past
    /// the rows sent since the last vacuum, so a few rows a claim, dozens of times a second, cost
    /// the database more than the pushes did. Room grows to the whole window as phones fetch (or
    /// their pushes age out), so a step always comes.
    mutating func allowance(now: Date) -> Int? {
        outstanding.expire(before: now.addingTimeInterval(-settings.horizon))
        guard let lastRequestAt, now.timeIntervalSince(lastRequestAt) < settings.quiet else { return nil }
        let room = max(0, window - outstanding.total)
        return room >= step ? room : 0
    }

    /// The fewest pushes a paced claim takes: a tenth of the window.
    var step: Int { max(1, window / 10) }
}

/// Pushes sent and not yet answered, oldest first, in batches by the time they left.
struct OutstandingPushes: Sendable {
    private var batches: [(at: Date, count: Int)] = []
    private var head = 0
    private(set) var total = 0

    mutating func add(_ count: Int, at time: Date) {
        guard count > 0 else { return }
        batches.append((time, count))
        total += count
    }

    /// Answers `count` pushes, oldest first; answers beyond the outstanding ones are dropped.
    mutating func answer(_ count: Int) {
        var left = count
        while left > 0, head < batches.count {
            let taken = min(left, batches[head].count)
            batches[head].count -= taken
            total -= taken
            left -= taken
            if batches[head].count == 0 { head += 1 }
        }
        compact()
    }

    /// Forgets pushes that left before `time`.
    mutating func expire(before time: Date) {
        while head < batches.count, batches[head].at < time {
            total -= batches[head].count
            head += 1
        }
        compact()
    }

    private mutating func compact() {
        if head > 64, head * 2 > batches.count {
            batches.removeFirst(head)
            head = 0
        }
    }
}

/// The push dispatcher's pacing: the pacer fed from this process's signing meter. Logs the pacer's
/// view at debug level once a second while it holds pushes back.
struct PushPacing: OutboxPacing {
    let meter: SigningMeter
    let logger: Logger?
    var pacer: PushPacer
    private var loggedAt = Date.distantPast

    init(meter: SigningMeter, settings: PushPacer.Settings = PushPacer.Settings(), logger: Logger? = nil) {
        self.meter = meter
        self.logger = logger
        self.pacer = PushPacer(settings: settings, permits: meter.permits)
    }

    mutating func allowance(now: Date) -> Int? {
        pacer.observe(meter.snapshot, now: now)
        let allowance = pacer.allowance(now: now)
        if let logger, allowance != nil, now.timeIntervalSince(loggedAt) >= 1 {
            loggedAt = now
            logger.debug("push pacing", [
                "rate_per_s": "\(Int(pacer.rate))", "window": "\(pacer.window)",
                "outstanding": "\(pacer.outstandingCount)", "waiting": "\(meter.snapshot.waiting)",
            ])
        }
        return allowance
    }

    mutating func sent(_ count: Int, now: Date) {
        pacer.sent(count, now: now)
    }

    var recheckInterval: TimeInterval { 0.05 }
}
