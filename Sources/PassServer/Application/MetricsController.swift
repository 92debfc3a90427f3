import Foundation
import HTTPServer
import Storage

/// `GET /metrics`: Prometheus text exposition of what operators watch: outbox depth, push outcomes,
/// the bundle cache, and whether APNs refused our credentials. Keep it off the public internet
/// (the example proxies do).
struct MetricsController: Sendable {
    let store: any Store
    let dispatcher: PushDispatcher
    let passes: PassService
    let readiness: Readiness
    var now: @Sendable () -> Date = Date.init

    func register(in router: inout Router) {
        router.get("/metrics") { _ in try self.metrics() }
    }

    func metrics() throws -> Response {
        var text = MetricsText()
        let outbox = try store.outboxCounts(now: now())
        text.gauge("passserver_push_outbox", "Outbox rows by state", [
            ("state=\"pending\"", outbox.pending), ("state=\"in_flight\"", outbox.inFlight), ("state=\"failed\"", outbox.failed),
        ])
        let pushes = dispatcher.statistics
        text.counter("passserver_pushes_total", "Push attempts answered or given up on by this process, by outcome", [
            ("outcome=\"delivered\"", pushes.delivered), ("outcome=\"logged\"", pushes.logged), ("outcome=\"pruned\"", pushes.pruned),
            ("outcome=\"retried\"", pushes.retried), ("outcome=\"failed\"", pushes.failed), ("outcome=\"halted\"", pushes.halted),
        ])
        text.counter("passserver_registrations_pruned_total", "Registrations deleted by this process after APNs answered that their push token is dead or foreign, by reason",
                     Self.byReason(pushes.registrationsPruned, always: ["Unregistered", "BadDeviceToken", "DeviceTokenNotForTopic"]))
        text.counter("passserver_pushes_failed_total", "Pushes this process gave up on, by APNs reason (retries_exhausted: retried past PUSH_MAX_RETRY_AGE)",
                     Self.byReason(pushes.failedByReason, always: ["retries_exhausted"]))
        text.gauge("passserver_apns_halted", "1 while APNs refuses our credentials or topic and sending is paused", [("", dispatcher.isHalted ? 1 : 0)])
        let unreachable = dispatcher.unreachableFinding() != nil
        text.gauge("passserver_apns_unreachable", "1 while APNs has been unreachable for longer than APNS_UNREACHABLE_GRACE with pushes pending",
                   [("", unreachable ? 1 : 0)])
        let cache = passes.cacheStatistics
        text.counter("passserver_bundle_cache_lookups_total", "Signed-bundle cache lookups by result", [
            ("result=\"hit\"", cache.hits), ("result=\"miss\"", cache.misses),
        ])
        text.gauge("passserver_bundle_cache_entries", "Signed bundles held in memory", [("", cache.entries)])
        return Response(status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: Array(text.output.utf8))
    }
}

extension MetricsController {
    /// `reason="…"` samples: the `always` reasons (0 until seen) and every other one seen, sorted.
    static func byReason(_ counts: [String: Int], always: [String]) -> [(labels: String, value: Int)] {
        Set(always).union(counts.keys).sorted().map { ("reason=\"\($0)\"", counts[$0] ?? 0) }
    }
}

/// Builds the Prometheus text format.
struct MetricsText {
    private(set) var output = ""

    mutating func gauge(_ name: String, _ help: String, _ samples: [(labels: String, value: Int)]) {
        family(name, help, type: "gauge", samples)
    }

    mutating func counter(_ name: String, _ help: String, _ samples: [(labels: String, value: Int)]) {
        family(name, help, type: "counter", samples)
    }

    private mutating func family(_ name: String, _ help: String, type: String, _ samples: [(labels: String, value: Int)]) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        for sample in samples {
            output += sample.labels.isEmpty ? "\(name) \(sample.value)\n" : "\(name){\(sample.labels)} \(sample.value)\n"
        }
    }
}
