import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

@Suite("Metrics families", .offCooperativePool, .timeLimit(.minutes(4)))
struct MetricsFamiliesTests {
    /// The value of the sample `series` (name and labels exactly as exported), if present.
    static func value(_ series: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test("after known traffic every family says what happened", arguments: Backend.allCases)
    func afterKnownTraffic(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serials = [try app.issueTicket(event: event), try app.issueTicket(event: event)]
        // Three requests to one route, one of them a 404; one request no route matches.
        #expect(try app.admin("GET", "/admin/v1/events/\(event)").status == 200)
        #expect(try app.admin("GET", "/admin/v1/events/\(event)").status == 200)
        #expect(try app.admin("GET", "/admin/v1/events/AAAAAAAAAAAAAAAAAAAAAA").status == 404)
        #expect(try app.request("GET", "/no/such/place/\(event)").status == 404)
        let phone = Phone(app: app)
        let watch = Phone(app: app)
        #expect(try phone.register(serials[0]).status == 201)
        #expect(try phone.register(serials[1]).status == 201)
        #expect(try watch.register(serials[0]).status == 201)
        // An event edit starts a re-push job of two passes (APNS_MODE=log: their pushes are logged).
        #expect(try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Osaka Hall"}"#).status == 200)
        // A push enqueued two minutes ago that backs off until tomorrow.
        let now = Date()
        try app.store.execute("""
            INSERT INTO push_outbox (push_token, pass_type_identifier, next_attempt_at, first_enqueued_at, state)
            VALUES ('waiting', \(app.passTypeIdentifier), \(Int64((now.timeIntervalSince1970 + 86_400) * 1000)), \(Int64((now.timeIntervalSince1970 - 120) * 1000)), 'pending')
            """)

        var text = ""
        try await eventually("the job and its pushes counted: \(text)", timeout: 60) {
            text = try app.request("GET", "/metrics").text
            return Self.value(#"passserver_jobs{state="done"}"#, in: text) == 1
                && Self.value(#"passserver_pushes_total{outcome="logged"}"#, in: text) == 2
        }

        let route = "/admin/v1/events/:eventId"
        #expect(Self.value(#"passserver_http_requests_total{method="GET",route="\#(route)",status="2xx"}"#, in: text) == 2)
        #expect(Self.value(#"passserver_http_requests_total{method="GET",route="\#(route)",status="4xx"}"#, in: text) == 1)
        #expect(Self.value(#"passserver_http_requests_total{method="PATCH",route="\#(route)",status="2xx"}"#, in: text) == 1)
        #expect(Self.value(#"passserver_http_requests_total{method="GET",route="unmatched",status="4xx"}"#, in: text) == 1)
        let registration = "/v1/devices/:deviceLibraryIdentifier/registrations/:passTypeIdentifier/:serialNumber"
        #expect(Self.value(#"passserver_http_requests_total{method="POST",route="\#(registration)",status="2xx"}"#, in: text) == 3)
        #expect(Self.value(#"passserver_http_requests_total{method="POST",route="/admin/v1/events/:eventId/tickets",status="2xx"}"#, in: text) == 2)
        #expect(!text.contains(event), "raw paths never become labels")
        #expect(text.contains("# TYPE passserver_http_request_duration_seconds histogram"))
        #expect(Self.value(#"passserver_http_request_duration_seconds_count{route="\#(route)"}"#, in: text) == 4)
        #expect(Self.value(#"passserver_http_request_duration_seconds_bucket{route="\#(route)",le="+Inf"}"#, in: text) == 4)
        let fastest = Self.value(#"passserver_http_request_duration_seconds_bucket{route="\#(route)",le="0.005"}"#, in: text) ?? -1
        let slowest = Self.value(#"passserver_http_request_duration_seconds_bucket{route="\#(route)",le="10"}"#, in: text) ?? -1
        #expect(fastest >= 0 && fastest <= slowest && slowest <= 4, "buckets are cumulative")
        #expect((Self.value(#"passserver_http_request_duration_seconds_sum{route="\#(route)"}"#, in: text) ?? -1) > 0)

        #expect(Self.value("passserver_registrations", in: text) == 3)
        #expect(Self.value("passserver_devices", in: text) == 2)
        #expect(Self.value(#"passserver_jobs{state="running"}"#, in: text) == 0)
        #expect(Self.value(#"passserver_job_passes{progress="total"}"#, in: text) == 0, "no unfinished job")
        let age = Self.value("passserver_push_oldest_pending_age_seconds", in: text) ?? -1
        #expect(age >= 119 && age < 600, "\(age)")
        #expect(Self.value(#"passserver_push_outbox{state="pending"}"#, in: text) == 1)
        #expect(Self.value("passserver_push_transport_failures_total", in: text) == 0)
        #expect(Self.value("passserver_database_up", in: text) == 1)

        let rss = Self.value("passserver_process_resident_memory_bytes", in: text) ?? -1
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let vmRSS = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { Double($0.split(separator: " ")[1]) }.map { $0 * 1024 } ?? 0
        #expect(rss > 1_000_000 && rss > vmRSS / 2 && rss < vmRSS * 2, "\(rss) vs VmRSS \(vmRSS)")
        let descriptors = Self.value("passserver_process_open_fds", in: text) ?? -1
        #expect(descriptors >= 3 && descriptors < 100_000)
        let uptime = Self.value("passserver_process_uptime_seconds", in: text) ?? -1
        #expect(uptime > 0 && uptime < 3_600)
        let started = Self.value("passserver_process_start_time_seconds", in: text) ?? -1
        #expect(abs(started - now.timeIntervalSince1970) < 600)
    }

    @Test("a job in progress shows as running, with its passes in total and done so far", arguments: Backend.allCases)
    func jobProgress(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        // Another process's runner holds this job for the next hour, two of its five passes done.
        let until = Int64((Date().timeIntervalSince1970 + 3_600) * 1000)
        try app.store.execute("""
            INSERT INTO jobs (id, kind, event_id, state, total, done, cursor, claimed_until, started_at, created_at)
            VALUES ('running-elsewhere', 'repush', \(event), 'running', 5, 2, 0, \(until), 0, 0)
            """)
        // Finished a minute ago: the retention sweep that runs at start (its thread may be late on
        // a busy machine) keeps it.
        let finished = Int64((Date().timeIntervalSince1970 - 60) * 1000)
        try app.store.execute("""
            INSERT INTO jobs (id, kind, event_id, state, total, done, created_at, finished_at)
            VALUES ('old', 'repush', \(event), 'failed', 3, 1, 0, \(finished))
            """)
        let text = try app.request("GET", "/metrics").text
        #expect(Self.value(#"passserver_jobs{state="running"}"#, in: text) == 1)
        #expect(Self.value(#"passserver_jobs{state="failed"}"#, in: text) == 1)
        #expect(Self.value(#"passserver_jobs{state="pending"}"#, in: text) == 0)
        #expect(Self.value(#"passserver_job_passes{progress="total"}"#, in: text) == 5)
        #expect(Self.value(#"passserver_job_passes{progress="done"}"#, in: text) == 2)
    }
}
