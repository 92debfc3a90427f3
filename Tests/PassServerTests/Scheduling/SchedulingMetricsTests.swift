import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// `/metrics` counts scheduled actions by kind and state, and the announcements this process sent.
@Suite("Scheduling metrics", .offCooperativePool, .timeLimit(.minutes(3)))
struct SchedulingMetricsTests {
    @Test("pending, applied, failed and cancelled actions; announcements sent, alerting or not", arguments: Backend.allCases)
    func families(backend: Backend) async throws {
        let app = try await offPool { try TestApp.start(backend) }
        defer { app.stop() }
        let (event, archived) = try await offPool { (try app.createEvent(name: "Open"), try app.createEvent(name: "Closing")) }
        let later = Date().addingTimeInterval(3_600)
        let soon = Date().addingTimeInterval(2)
        let cancelled = try await offPool { () throws -> String in
            _ = try SchedulingSupport.announce(app, event: event, message: "Now")
            _ = try SchedulingSupport.announce(app, event: event, message: "Quietly", notify: false)
            _ = try ScheduledChangeTests.schedule(app, event: event, at: later, #""venue":"Later Hall""#)
            _ = try ScheduledChangeTests.schedule(app, event: event, at: soon, #""venue":"Soon Hall""#)
            _ = try ScheduledChangeTests.schedule(app, event: archived, at: soon, #""venue":"Never Hall""#)
            let id = try ScheduledChangeTests.schedule(app, event: event, at: later, #""name":"Never""#)
            #expect(try app.admin("POST", "/admin/v1/events/\(event)/scheduled-changes/\(id)/cancel").status == 200)
            #expect(try app.admin("POST", "/admin/v1/events/\(archived)/archive").status == 200)
            return id
        }
        #expect(!cancelled.isEmpty)
        var text = ""
        try await eventually("the due changes applied and failed: \(text)", timeout: 30) {
            text = try app.request("GET", "/metrics").text
            return MetricsFamiliesTests.value(#"passserver_scheduled_actions{kind="event-edit",state="applied"}"#, in: text) == 1
                && MetricsFamiliesTests.value(#"passserver_scheduled_actions{kind="event-edit",state="failed"}"#, in: text) == 1
        }
        #expect(MetricsFamiliesTests.value(#"passserver_scheduled_actions{kind="event-edit",state="pending"}"#, in: text) == 1)
        #expect(MetricsFamiliesTests.value(#"passserver_scheduled_actions{kind="event-edit",state="cancelled"}"#, in: text) == 1)
        #expect(MetricsFamiliesTests.value(#"passserver_scheduled_actions{kind="announcement",state="pending"}"#, in: text) == 0)
        #expect(MetricsFamiliesTests.value(#"passserver_announcements_sent_total{notify="true"}"#, in: text) == 1)
        #expect(MetricsFamiliesTests.value(#"passserver_announcements_sent_total{notify="false"}"#, in: text) == 1)
        #expect(MetricsFamiliesTests.value(#"passserver_scheduled_actions_finished_total{outcome="applied"}"#, in: text) == 1)
        #expect(MetricsFamiliesTests.value(#"passserver_scheduled_actions_finished_total{outcome="failed"}"#, in: text) == 1)
    }
}
