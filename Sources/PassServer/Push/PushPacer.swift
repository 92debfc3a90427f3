import Foundation

/// Paces pushes so phones arrive at the rate this process can sign their passes: pure, fed with
/// the signing meter's totals and the pushes sent, tested without sockets.
///
/// Every push makes a phone fetch a pass that must be signed. Pushing faster than signing only
/// moves the wait from the outbox (where it costs nothing) to the phones' fetches (where Wallet
/// times out and backs off). So the pacer keeps at most a window of pushes *outstanding* (sent,
/// not yet answered by a bundle request), the window being `capacity × lead`: `capacity` is what
/// the signing permits sign per second (permits ÷ mean build time, measured), `lead` how many
/// seconds of signing may be pushed ahead (covering the phones' think time).
///
/// - A bundle request answers the oldest outstanding push (first in, first out). A push no request
///   answers within `horizon` stops counting: that phone is off, or fetched from another instance.
/// - With no bundle requested for `quiet`, phones are not fetching (or pushes go to tokens whose
///   phones never call back): pushes are not held back at all.
/// - The lead adapts: when the window is full yet the permits are idle more than `idle` of the
///   time, phones take longer than the lead assumes, so it grows (×1.5, up to `maximumLead`);
///   while the permits are busy it shrinks back (÷1.25, down to `lead`).
struct PushPacer: Sendable {
    struct Settings: Sendable, Equatable {
        var lead: TimeInterval = 2
        var maximumLead: TimeInterval = 60
        var horizon: TimeInterval = 10
        var quiet: TimeInterval = 2
        /// The smallest window, whatever the measured capacity.
        var minimumWindow = 100
        /// How often the lead is reconsidered.
        var adjustInterval: TimeInterval = 0.5
        /// Below this share of busy permits (while the window is full) the lead grows.
        var idle = 0.7
        /// Above this share the lead shrinks back.
        var busy = 0.9
    }

    let settings: Settings
    let permits: Int
    private(set) var lead: TimeInterval
    /// Mean seconds to build one bundle on one permit.
    private(set) var buildSeconds: Double
    private var outstanding = OutstandingPushes()
    private var lastRequestAt: Date?
    private var last: SigningMeter.Snapshot?
    private var period: (start: Date, busySeconds: Double, full: Bool)?

    init(settings: Settings = Settings(), permits: Int, buildSeconds: Double = 0.002) {
        self.settings = settings
        self.permits = max(1, permits)
        self.lead = settings.lead
        self.buildSeconds = buildSeconds
    }

    /// Bundles the permits sign per second.
    var capacity: Double { Double(permits) / max(buildSeconds, 1e-6) }

    /// The most pushes that may be outstanding.
    var window: Int { max(settings.minimumWindow, Int((capacity * lead).rounded())) }

    /// Pushes sent and not yet answered (nor aged out).
    var outstandingCount: Int { outstanding.total }

    /// Takes the meter's totals into account: new bundle requests answer outstanding pushes, new
    /// builds refine the build time, busy time drives the lead.
    mutating func observe(_ meter: SigningMeter.Snapshot, now: Date) {
        guard let previous = last else {
            last = meter
            if meter.signed > 0 { buildSeconds = meter.signingSeconds / Double(meter.signed) }
            period = (now, 0, false)
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
        var current = period ?? (now, 0, false)
        current.busySeconds += busySeconds
        let elapsed = now.timeIntervalSince(current.start)
        if elapsed >= settings.adjustInterval {
            let utilization = current.busySeconds / (Double(permits) * elapsed)
            if current.full && utilization < settings.idle {
                lead = min(settings.maximumLead, lead * 1.5)
            } else if utilization > settings.busy {
                lead = max(settings.lead, lead / 1.25)
            }
            current = (now, 0, false)
        }
        period = current
    }

    /// `count` pushes just left.
    mutating func sent(_ count: Int, now: Date) {
        outstanding.add(count, at: now)
    }

    /// How many more pushes may leave now; nil while phones are not fetching.
    mutating func allowance(now: Date) -> Int? {
        outstanding.expire(before: now.addingTimeInterval(-settings.horizon))
        guard let lastRequestAt, now.timeIntervalSince(lastRequestAt) < settings.quiet else { return nil }
        let room = max(0, window - outstanding.total)
        if room == 0 { period?.full = true }
        return room
    }
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

/// The push dispatcher's pacing: the pacer fed from this process's signing meter.
struct PushPacing: OutboxPacing {
    let meter: SigningMeter
    var pacer: PushPacer

    init(meter: SigningMeter, settings: PushPacer.Settings = PushPacer.Settings()) {
        self.meter = meter
        self.pacer = PushPacer(settings: settings, permits: meter.permits)
    }

    mutating func allowance(now: Date) -> Int? {
        pacer.observe(meter.snapshot, now: now)
        return pacer.allowance(now: now)
    }

    mutating func sent(_ count: Int, now: Date) {
        pacer.sent(count, now: now)
    }

    var recheckInterval: TimeInterval { 0.05 }
}
