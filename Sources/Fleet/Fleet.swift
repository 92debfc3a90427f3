// Fleet: a simulated fleet of phones for a running pass server, to measure what an organizer cares
// about after an edit: how soon every attendee's phone holds the new pass.
//
// Threading model: one dedicated thread (`EventLoop`) owns every socket of the HTTP/1.1 client,
// every timer and all phone state, in a poll() loop. The fake APNs runs on its own thread (see
// the FakeAPNs module) and hands each accepted push to the loop through its inbox. The
// async methods below post their work to the loop and suspend until it answers, so no thread of
// Swift's cooperative pool ever blocks on the fleet.

public import FakeAPNs

/// A fleet of simulated phones with an embedded fake APNs.
///
/// 1. `init` starts the fake APNs: point the server's APNS_URL at `apns.url`.
/// 2. `setUp(serverPort:adminToken:)` creates an event and its tickets through the admin API,
///    downloads each pass, registers every phone.
/// 3. `editVenue()` PATCHes the event's venue as the organizer and follows every phone until it
///    holds the new pass (or the deadline passes), then reports.
public final class Fleet: Sendable {
    public let configuration: FleetConfiguration
    /// The fake APNs the server must push to.
    public let apns: FakeAPNs
    private let loop: EventLoop
    private let driver: FleetDriver

    public init(configuration: FleetConfiguration) throws {
        self.configuration = configuration
        let loop = try EventLoop()
        let driver = try FleetDriver(configuration: configuration, loop: loop)
        var apnsConfiguration = configuration.apns
        let previous = apnsConfiguration.onAccepted
        apnsConfiguration.onAccepted = { token in
            previous?(token)
            loop.execute { driver.pushed(token) }
        }
        loop.start()
        do {
            apns = try FakeAPNs(configuration: apnsConfiguration)
        } catch {
            loop.stop()
            throw error
        }
        self.loop = loop
        self.driver = driver
    }

    deinit { shutdown() }

    /// Creates the event, its tickets and the phones against the server on 127.0.0.1:`serverPort`.
    public func setUp(serverPort: UInt16, adminToken: String) async throws -> FleetReport.Setup {
        try await onLoop { [driver] done in driver.setUp(port: serverPort, adminToken: adminToken, completion: done) }
    }

    /// The organizer's edit of the venue, and what it did to every phone.
    public func editVenue() async throws -> FleetReport {
        try await onLoop { [driver] done in driver.edit(completion: done) }
    }

    /// Tickets issued and downloaded, and phones registered, so far in the setup (any thread).
    public var setupProgress: (tickets: Int, phones: Int) {
        (driver.progress.ticketsIssued.load(ordering: .relaxed), driver.progress.phonesRegistered.load(ordering: .relaxed))
    }

    /// Phones holding the new pass in the current edit (readable from any thread at any time).
    public var updatedPhones: Int { driver.progress.updatedPhones.load(ordering: .relaxed) }

    /// Pushes accepted by the fake APNs for the fleet's phones so far.
    public var pushesAccepted: Int { driver.progress.pushesAccepted.load(ordering: .relaxed) }

    /// Stops the phones (awaited operations fail with `.shutdown`) and the fake APNs; idempotent.
    public func shutdown() {
        loop.execute { [driver] in driver.abort() }
        loop.stop()
        apns.shutdown()
    }

    private func onLoop<T: Sendable>(_ start: @escaping @Sendable (@escaping (Result<T, FleetError>) -> Void) -> Void) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let posted = loop.execute { start { continuation.resume(with: $0) } }
            if !posted { continuation.resume(throwing: FleetError(.shutdown, "the fleet has shut down")) }
        }
    }
}
