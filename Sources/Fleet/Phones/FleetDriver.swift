// The phones themselves: every simulated phone's state, the setup that creates them through the
// server's public APIs (FleetDriver+Setup), and what they do after an organizer's edit
// (FleetDriver+Storm). Event loop thread only; see Fleet.swift for the threading model.

import Foundation
import Synchronization
import SystemSupport

/// Counters other threads may read while the fleet runs.
final class FleetProgress: Sendable {
    let ticketsIssued = Atomic<Int>(0)
    let phonesRegistered = Atomic<Int>(0)
    let updatedPhones = Atomic<Int>(0)
    let pushesAccepted = Atomic<Int>(0)
}

final class FleetDriver: @unchecked Sendable {
    // Safe because: every stored property except `progress` (atomics) is used only on the event
    // loop's thread; other threads reach the driver only through `EventLoop.execute`.

    let configuration: FleetConfiguration
    let layout: FleetLayout
    let loop: EventLoop
    let refusing: RefusingPort
    let verifier: PassVerifier?
    let progress = FleetProgress()
    let backoff: Backoff
    var random: SeededRandom
    var adminAuthorization = ""

    // Passes (index: pass), filled by the setup from the tickets and the downloaded pass.json.
    var eventID = ""
    var passType = ""
    var serials: [String] = []
    var authorizations: [String] = []
    var downloadedModified: [String] = []
    var serialIndex: [String: Int] = [:]

    // Phones (index: phone) and the passes they hold (index: slot, see FleetLayout).
    var devices: [String] = []
    var pushTokens: [String] = []
    var tokenIndex: [String: Int] = [:]
    var syncs: [PhoneSync] = []
    var slotModified: [String] = []

    var setupCompletion: ((Result<FleetReport.Setup, FleetError>) -> Void)?
    var setupReport: FleetReport.Setup?
    var storm: StormState?
    var stormCompletion: ((Result<FleetReport, FleetError>) -> Void)?
    var stopped = false

    init(configuration: FleetConfiguration, loop: EventLoop) throws(FleetError) {
        try configuration.validate()
        self.configuration = configuration
        self.layout = configuration.layout
        self.loop = loop
        self.refusing = try RefusingPort()
        self.verifier = try configuration.trustRoot.map { path throws(FleetError) in try PassVerifier(trustRoot: path) }
        self.backoff = Backoff(base: configuration.retryBase, maximum: configuration.retryMaximum)
        self.random = SeededRandom(seed: configuration.seed)
    }

    /// Fails whatever is waiting (the fleet is shutting down); later results are ignored.
    func abort() {
        stopped = true
        completeSetup(.failure(FleetError(.shutdown, "the fleet shut down during the setup")))
        finishStorm(error: FleetError(.shutdown, "the fleet shut down during the edit"))
    }

    func completeSetup(_ result: Result<FleetReport.Setup, FleetError>) {
        guard let completion = setupCompletion else { return }
        setupCompletion = nil
        if case .success(let report) = result { setupReport = report }
        completion(result)
    }

    // MARK: Requests

    /// Sends a setup or admin request and expects one of `statuses`; a request that got no answer
    /// is sent again after half a second, and one answered 503 (the server is busy or its database
    /// is down) after its `Retry-After` (half a second to five), as Wallet does, up to `attempts`
    /// times in all. Completes asynchronously.
    func call(
        _ request: ClientRequest, expect statuses: Set<Int>, attempts: Int = 3, what: String,
        _ completion: @escaping (Result<ClientResponse, FleetError>) -> Void
    ) {
        guard let pool = loop.pool, !stopped else {
            loop.after(0) { completion(.failure(FleetError(.shutdown, "the fleet is not running"))) }
            return
        }
        pool.send(request, now: monotonicSeconds()) { [self] result in
            switch result {
            case .success(let response) where statuses.contains(response.status):
                completion(.success(response))
            case .success(let response) where response.status == 503 && attempts > 1 && !stopped:
                let delay = min(max(response.header("Retry-After").flatMap(Double.init) ?? 1, 0.5), 5)
                loop.after(delay) { self.call(request, expect: statuses, attempts: attempts - 1, what: what, completion) }
            case .success(let response):
                let body = String(decoding: response.body.prefix(300), as: UTF8.self)
                completion(.failure(FleetError(.unexpectedResponse, "\(what) answered \(response.status): \(body)")))
            case .failure(let error) where error.isTransport && attempts > 1 && !stopped:
                loop.after(0.5) { self.call(request, expect: statuses, attempts: attempts - 1, what: what, completion) }
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }

    /// A JSON request body from an encodable value.
    static func json<T: Encodable>(_ value: T) -> [UInt8] {
        (try? JSONEncoder().encode(value)).map(Array.init) ?? Array("{}".utf8)
    }

    /// A JSON object answer.
    static func object(_ response: ClientResponse) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
    }
}
