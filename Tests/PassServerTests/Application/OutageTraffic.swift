import Foundation
import PassServerFixtures
import PassServerTesting
import Synchronization

/// Steady traffic against a running `TestApp` from dedicated threads, each request on its own
/// connection, every answer recorded: phones registering, phones listing changes, an organizer
/// editing seats, and a load balancer polling `/readyz`. Bounded: each thread pauses between
/// requests and all stop on `stop()`.
final class OutageTraffic: Sendable {
    enum Kind: String, Sendable {
        case registration, list, edit, readiness
    }

    /// One request and its answer (status 0: no answer at all).
    struct Exchange: Sendable {
        var kind: Kind
        var sentAt: Date
        var answeredAt: Date
        var status: Int
        var retryAfter: String?
        var errorCode: String?
        /// The phone of a registration.
        var device: String?
        /// The ticket registered for or edited.
        var serial: String?
        var failure: String?
    }

    /// A phone registered before the traffic starts (its token must be pushed for every edit).
    struct Holder: Sendable {
        var device: String
        var token: String
        var serial: String
    }

    let serials: [String]
    let holders: [Holder]
    private let app: TestApp
    private let log = Mutex<[Exchange]>([])
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let threadCount = Atomic<Int>(0)

    init(app: TestApp, serials: [String], holders: [Holder]) {
        self.app = app
        self.serials = serials
        self.holders = holders
    }

    var exchanges: [Exchange] { log.withLock { $0 } }

    /// Starts two registering threads, one listing, one editing and one polling readiness.
    func start() {
        for kind in [Kind.registration, .registration, .list, .edit, .readiness] {
            threadCount.add(1, ordering: .relaxed)
            let thread = Thread { [self] in
                while !stopping.load(ordering: .relaxed) {
                    step(kind)
                    usleep(kind == .readiness ? 200_000 : UInt32.random(in: 20_000...60_000))
                }
                finished.signal()
            }
            thread.name = "traffic-\(kind.rawValue)"
            thread.start()
        }
    }

    /// Stops every thread and waits for them (each finishes its request in flight first).
    func stop() {
        stopping.store(true, ordering: .relaxed)
        for _ in 0..<threadCount.load(ordering: .relaxed) { finished.wait() }
    }

    private func step(_ kind: Kind) {
        let serial = serials.randomElement() ?? ""
        var exchange = Exchange(kind: kind, sentAt: Date(), answeredAt: Date(), status: 0)
        do {
            let response: TestResponse
            switch kind {
            case .registration:
                let phone = Phone(app: app)
                exchange.device = phone.deviceLibraryIdentifier
                exchange.serial = serial
                response = try phone.register(serial)
            case .list:
                let holder = holders.randomElement()
                let phone = Phone(app: app, deviceLibraryIdentifier: holder?.device, pushToken: holder?.token)
                let tag = Bool.random() ? "?passesUpdatedSince=\(Int.random(in: 1...50))" : ""
                response = try app.request("GET", "/v1/devices/\(phone.deviceLibraryIdentifier)/registrations/\(app.passTypeIdentifier)\(tag)")
            case .edit:
                exchange.serial = serial
                response = try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"seat":"S\#(Int.random(in: 1...99_999))"}"#)
            case .readiness:
                response = try app.request("GET", "/readyz")
            }
            exchange.status = response.status
            exchange.retryAfter = response.header("Retry-After")
            exchange.errorCode = response.errorCode
        } catch {
            exchange.failure = "\(error)"
        }
        exchange.answeredAt = Date()
        log.withLock { $0.append(exchange) }
    }
}
