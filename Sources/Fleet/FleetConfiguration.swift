public import FakeAPNs

/// How the fleet is shaped and how its phones behave.
public struct FleetConfiguration: Sendable {
    /// Phones, and the passes each holds.
    public var layout: FleetLayout
    /// The fake APNs the server under test pushes to (127.0.0.1; its own TLS certificate). The
    /// fleet installs its `onAccepted` hook: every accepted push wakes that token's phone.
    public var apns: FakeAPNs.Configuration
    /// Keep-alive HTTP/1.1 connections to the server, shared by every phone.
    public var connections = 64
    /// Seconds a phone waits after a push before asking what changed (uniformly drawn).
    public var thinkTime: ClosedRange<Double> = 0...2
    /// Backoff of a failed list or fetch: `retryBase`, doubling up to `retryMaximum`, jittered
    /// over the upper half of each step.
    public var retryBase = 1.0
    public var retryMaximum = 60.0
    /// A request without a complete answer after this many seconds has failed.
    public var requestTimeout = 30.0
    /// Seconds after the organizer's edit at which phones still on the old pass are left behind.
    public var deadline = 600.0
    /// Fraction of fetched passes whose pass.json is checked (serial, token, the new venue).
    public var contentSample = 0.01
    /// Fraction of fetched passes whose manifest and CMS signature are verified against `trustRoot`.
    public var signatureSample = 0.001
    /// The event's design (a `PUT /admin/v1/events/{id}/design` body), set before the tickets are
    /// issued; nil leaves the template's look.
    public var design: [UInt8]?
    /// Files every signature-checked pass must hold besides those any pass has (an event design's
    /// images, `strip@3x.png`): a sampled pass without one counts as a bad signature check.
    public var expectedFiles: [String] = []
    /// PEM file of the root that issued the signing chain (needed when `signatureSample` > 0).
    public var trustRoot: String?
    /// Phones whose first `failedFetchesPerFaultyPhone` fetch attempts are aimed at a port that
    /// refuses connections, so their retry path runs for real; spread evenly over the fleet.
    public var faultyPhones = 0
    public var failedFetchesPerFaultyPhone = 2
    /// Seeds think times, jitter, device ids and push tokens.
    public var seed = UInt64.random(in: 0...UInt64.max)
    /// The venue the edit sets; nil picks a new one for every edit.
    public var venue: String?
    /// The server's process id, for its CPU time (by thread name too) and peak RSS (when it runs
    /// on this machine).
    public var serverPID: Int32?
    /// The database server's process id (PostgreSQL's postmaster), for the CPU time of it and its
    /// backends during the storm.
    public var databasePID: Int32?

    public init(layout: FleetLayout, apns: FakeAPNs.Configuration) {
        self.layout = layout
        self.apns = apns
    }

    func validate() throws(FleetError) {
        var problems: [String] = []
        if !(1...4096).contains(connections) { problems.append("connections must be 1...4096") }
        if thinkTime.lowerBound < 0 { problems.append("think time must not be negative") }
        if retryBase <= 0 || retryMaximum < retryBase { problems.append("retry base must be positive and at most the maximum") }
        if requestTimeout <= 0 || deadline <= 0 { problems.append("request timeout and deadline must be positive") }
        if !(0...1).contains(contentSample) || !(0...1).contains(signatureSample) { problems.append("samples are fractions 0...1") }
        if signatureSample > 0 && trustRoot == nil { problems.append("a signature sample needs a trust root") }
        if faultyPhones < 0 || faultyPhones > layout.phones { problems.append("faulty phones must be 0...phones") }
        if failedFetchesPerFaultyPhone < 0 { problems.append("failed fetches per faulty phone must not be negative") }
        if !problems.isEmpty { throw FleetError(.invalidConfiguration, problems.joined(separator: "; ")) }
    }

    /// The faulty phones, spread evenly.
    var faultyPhoneIndices: Set<Int> {
        guard faultyPhones > 0 else { return [] }
        return Set((0..<faultyPhones).map { $0 * layout.phones / faultyPhones })
    }

    /// Every `n`-th slot is sampled for a fraction 1/n (nil: none).
    static func stride(_ fraction: Double) -> Int? {
        fraction > 0 ? max(1, Int((1 / fraction).rounded())) : nil
    }
}
