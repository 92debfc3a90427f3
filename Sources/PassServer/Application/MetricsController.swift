import Foundation
import HTTPServer
import Logging
import Storage
import SystemSupport

/// `GET /metrics`: Prometheus text exposition of what operators watch and alert on (see
/// `deploy/prometheus-alerts.yml`): the outbox and its oldest pending push, push outcomes, pruned
/// registrations and failed pushes by APNs reason, APNs halts and unreachability, registrations,
/// devices and jobs, ticket emails, HTTP requests and latency by route, certificate expiry, the bundle cache, and
/// the process's memory, file descriptors and uptime. Outbox counts are read on every scrape; the
/// table-wide counts (registrations, devices, jobs, oldest pending push) at most every
/// `StatisticsCache` period. Keep it off the public internet (the example proxies do).
struct MetricsController: Sendable {
    let store: any Store
    let dispatcher: PushDispatcher
    /// The Android wallet relay's dispatcher; nil while ANDROID_PASS_PUSH_URL is unset.
    let relay: PushDispatcher?
    /// Ticket emails; nil while email is off.
    let mail: MailDispatcher?
    let passes: PassService
    let http: HTTPMetrics
    let checkIns: CheckInMetrics
    /// Announcements sent and scheduled actions applied by this process.
    let scheduling: SchedulingMetrics
    let certificates: CertificateMonitor
    /// Google Wallet's callbacks; nil while Google Wallet is off.
    let googleWallet: CallbackMetrics?
    /// Google Wallet's updates; nil while Google Wallet is off.
    var googleUpdates: GoogleWalletDispatcher? = nil
    /// Webhook deliveries.
    var webhooks: WebhookDispatcher? = nil
    let logger: Logger
    let countsCache = StatisticsCache(ttl: .seconds(15))
    /// When the process started, by `now` (for `passserver_process_start_time_seconds`) and by the
    /// monotonic clock (for the uptime).
    let startedAt: Date
    let startedInstant: ContinuousClock.Instant
    var now: @Sendable () -> Date = Date.init

    func register(in router: inout Router) {
        router.get("/metrics") { _ in self.metrics() }
    }

    func metrics() -> Response {
        // The dispatcher counts an outcome after committing it, so reading its counters before the
        // database never shows an outcome whose outbox row the same scrape still counts.
        let pushes = dispatcher.statistics
        let relayed = relay?.statistics
        let emails = mail?.statistics
        let google = googleUpdates?.statistics
        let hooks = webhooks?.statistics
        var text = MetricsText()
        database(&text)
        self.pushes(pushes, &text)
        if let relay, let relayed { self.relayed(relayed, halted: relay.isHalted, &text) }
        self.emails(emails, &text)
        requests(&text)
        text.counter("passserver_checkins_total", "Scans answered by the check-in API, by result (forged: a valid serial with a wrong signature)",
                     checkIns.snapshot.map { ("result=\"\($0.result.rawValue)\"", $0.count) })
        scheduled(&text)
        if let googleUpdates, let google { googleWalletUpdates(google, dispatcher: googleUpdates, &text) }
        if let hooks { webhookDeliveries(hooks, &text) }
        if let googleWallet {
            text.counter("passserver_google_wallet_callbacks_total", "Google Wallet save and delete callbacks answered by this process, by outcome (save, del, replayed, or why refused)",
                         googleWallet.snapshot.map { ("outcome=\"\($0.outcome)\"", $0.count) })
        }
        certificateExpiry(&text)
        let cache = passes.cacheStatistics
        text.counter("passserver_bundle_cache_lookups_total", "Signed-bundle cache lookups by result", [
            ("result=\"hit\"", cache.hits), ("result=\"miss\"", cache.misses),
        ])
        text.gauge("passserver_bundle_cache_entries", "Signed bundles held in memory", [("", cache.entries)])
        process(&text)
        return Response(status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: Array(text.output.utf8))
    }

    /// Counts from the database; while it is unreachable only `passserver_database_up 0`.
    private func database(_ text: inout MetricsText) {
        let time = now()
        let outbox: OutboxCounts
        let statistics: StoreStatistics
        do {
            (outbox, statistics) = try store.withSession(.read) { session in
                (try session.outbox.outboxCounts(now: time), try countsCache.value { try session.statistics() })
            }
        } catch {
            logger.warning("metrics: cannot read the database", ["error": "\(error)"])
            text.gauge("passserver_database_up", "1 when the last scrape could read the database", [("", 0)])
            return
        }
        text.gauge("passserver_database_up", "1 when the last scrape could read the database", [("", 1)])
        text.gauge("passserver_push_outbox", "Outbox rows by state", [
            ("state=\"pending\"", outbox.pending), ("state=\"in_flight\"", outbox.inFlight), ("state=\"failed\"", outbox.failed),
        ])
        let age = statistics.oldestPendingPush.map { max(0, time.timeIntervalSince($0)) } ?? 0
        text.gauge("passserver_push_oldest_pending_age_seconds", "Age of the oldest pending push since it was first enqueued; 0 when none is pending", [("", age)])
        text.gauge("passserver_registrations", "Registrations (device and pass) in the database", [("", statistics.registrations)])
        text.gauge("passserver_devices", "Devices with at least one registration", [("", statistics.devices)])
        text.gauge("passserver_checked_in_tickets", "Tickets checked in at the door", [("", statistics.checkedIn)])
        if googleWallet != nil {
            text.gauge("passserver_google_wallet_saved_tickets", "Tickets saved in Google Wallet now, by Google's callbacks", [("", statistics.googleWalletSaved)])
        }
        text.gauge("passserver_jobs", "Re-push jobs by state", Job.State.allCases.map { ("state=\"\($0.rawValue)\"", statistics.jobs[$0] ?? 0) })
        text.gauge("passserver_job_passes", "Passes of pending and running jobs: to bump in total, and bumped so far", [
            ("progress=\"total\"", Int(statistics.unfinishedJobPasses)), ("progress=\"done\"", Int(statistics.unfinishedJobPassesDone)),
        ])
    }

    private func pushes(_ pushes: OutboxStatistics, _ text: inout MetricsText) {
        text.counter("passserver_pushes_total", "Push attempts answered or given up on by this process, by outcome", [
            ("outcome=\"delivered\"", pushes.delivered), ("outcome=\"logged\"", pushes.logged), ("outcome=\"pruned\"", pushes.pruned),
            ("outcome=\"retried\"", pushes.retried), ("outcome=\"failed\"", pushes.failed), ("outcome=\"halted\"", pushes.halted),
        ])
        text.counter("passserver_registrations_pruned_total", "Registrations deleted by this process after APNs answered that their push token is dead or foreign, by reason",
                     Self.byReason(pushes.registrationsPruned, always: ["Unregistered", "BadDeviceToken", "DeviceTokenNotForTopic"]))
        text.counter("passserver_pushes_failed_total", "Pushes this process gave up on, by APNs reason (retries_exhausted: retried past PUSH_MAX_RETRY_AGE)",
                     Self.byReason(pushes.failedByReason, always: ["retries_exhausted"]))
        text.counter("passserver_push_transport_failures_total", "Pushes APNs never answered (connection or TLS failure, connection lost, timeout)", [
            ("", pushes.transportFailures),
        ])
        text.gauge("passserver_apns_halted", "1 while APNs refuses our credentials or topic and sending is paused", [("", dispatcher.isHalted ? 1 : 0)])
        let unreachable = dispatcher.unreachableFinding() != nil
        text.gauge("passserver_apns_unreachable", "1 while APNs has been unreachable for longer than APNS_UNREACHABLE_GRACE with pushes pending",
                   [("", unreachable ? 1 : 0)])
    }

    /// Google Wallet's updates: answered rows by outcome, notifying updates, what waits, the halt.
    private func googleWalletUpdates(_ updates: OutboxStatistics, dispatcher: GoogleWalletDispatcher, _ text: inout MetricsText) {
        var outcomes: [(String, Int)] = [
            ("outcome=\"synced\"", updates.synced), ("outcome=\"retried\"", updates.retried), ("outcome=\"deferred\"", updates.deferred),
            ("outcome=\"halted\"", updates.halted), ("outcome=\"skipped\"", updates.skipped),
        ]
        outcomes += updates.failedByReason.sorted { $0.key < $1.key }.map { ("outcome=\"failed\",reason=\"\($0.key)\"", $0.value) }
        text.counter("passserver_google_wallet_updates_total", "Google Wallet classes and objects this process brought up to date or tried to, by outcome", outcomes)
        text.counter("passserver_google_wallet_notifying_updates_total", "Updates sent to Google asking it to notify the holders", [("", updates.notified)])
        if let counts = try? store.withSession(.read, { try $0.google.googleOutboxCounts() }) {
            text.gauge("passserver_google_wallet_outbox", "Google Wallet updates waiting (pending) or given up on (failed)", [
                ("state=\"pending\"", counts.pending), ("state=\"failed\"", counts.failed),
            ])
        }
        text.gauge("passserver_google_wallet_halted", "1 while Google refuses our service account or issuer and updates are paused", [("", dispatcher.isHalted ? 1 : 0)])
    }

    /// Scheduled actions by kind and state (from the database, every scrape: a few rows), and what
    /// this process sent and applied.
    private func scheduled(_ text: inout MetricsText) {
        if let counts = try? store.withSession(.read, { try $0.schedule.scheduledActionCounts() }) {
            var samples: [(String, Int)] = []
            for kind in ScheduledAction.Kind.allCases {
                for state in ScheduledAction.State.allCases {
                    samples.append((MetricsText.labels(["kind": kind.rawValue, "state": state.rawValue]), counts.count(kind, state)))
                }
            }
            text.gauge("passserver_scheduled_actions", "Scheduled announcements and event edits by state (pending, applied, failed, cancelled)", samples)
        }
        let counts = scheduling.snapshot
        text.counter("passserver_announcements_sent_total", "Announcements this process sent to an event's passes, by whether they alert the lock screen", [
            ("notify=\"true\"", counts.notifyingSent), ("notify=\"false\"", counts.silentSent),
        ])
        text.counter("passserver_scheduled_actions_finished_total", "Scheduled actions this process applied, or found unable to apply (failed)", [
            ("outcome=\"applied\"", counts.applied), ("outcome=\"failed\"", counts.failed),
        ])
    }

    /// The relay's counters, while it is configured.
    private func relayed(_ pushes: OutboxStatistics, halted: Bool, _ text: inout MetricsText) {
        text.counter("passserver_relay_pushes_total", "Pushes to Android wallets through the relay answered or given up on by this process, by outcome", [
            ("outcome=\"delivered\"", pushes.delivered), ("outcome=\"retried\"", pushes.retried), ("outcome=\"failed\"", pushes.failed),
            ("outcome=\"halted\"", pushes.halted),
        ])
        text.gauge("passserver_relay_halted", "1 while the push relay refuses our API key and its sending is paused", [("", halted ? 1 : 0)])
    }

    private func requests(_ text: inout MetricsText) {
        text.counter("passserver_http_requests_total", "Answered HTTP requests by method, route pattern and status class", http.requests.map { item in
            (MetricsText.labels(["method": item.key.method, "route": item.key.route, "status": item.key.status]), item.count)
        })
        text.histogram(
            "passserver_http_request_duration_seconds", "Time from request arrival to response, by route pattern",
            bounds: HTTPMetrics.buckets,
            http.latency.map { (MetricsText.labels(["route": $0.route]), $0.histogram.counts, $0.histogram.sum, $0.histogram.count) }
        )
    }

    private func certificateExpiry(_ text: inout MetricsText) {
        text.gauge("passserver_certificate_expiry_timestamp_seconds", "When each certificate expires (Unix time)", certificates.certificates.map {
            (MetricsText.labels(["certificate": $0.name]), Int($0.notAfter.timeIntervalSince1970))
        })
    }

    private func process(_ text: inout MetricsText) {
        if let rss = ProcessStatistics.residentMemoryBytes() {
            text.gauge("passserver_process_resident_memory_bytes", "Resident memory of this process", [("", rss)])
        }
        if let descriptors = ProcessStatistics.openFileDescriptors() {
            text.gauge("passserver_process_open_fds", "Open file descriptors of this process", [("", descriptors)])
        }
        let uptime = ContinuousClock.now - startedInstant
        text.gauge("passserver_process_uptime_seconds", "Seconds since this process started", [
            ("", uptime.timeInterval),
        ])
        text.gauge("passserver_process_start_time_seconds", "When this process started (Unix time)", [("", Int(startedAt.timeIntervalSince1970))])
    }
}

extension MetricsController {
    /// `reason="…"` samples: the `always` reasons (0 until seen) and every other one seen, sorted.
    static func byReason(_ counts: [String: Int], always: [String]) -> [(labels: String, value: Int)] {
        Set(always).union(counts.keys).sorted().map { ("reason=\"\($0)\"", counts[$0] ?? 0) }
    }
}
