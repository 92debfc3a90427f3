import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// In headless Chromium at desktop and phone widths (Tests/Browser/dashboard_scheduling.py): an
/// announcement written and sent now (listed with its reach once the phones fetched), a second one
/// refused with the time it is allowed, a silent one scheduled, both withdrawn or cancelled; an edit
/// scheduled from the event's edit form, listed, edited and cancelled.
@Suite("Web: announcements and scheduled changes in a browser", .offCooperativePool, .tags(.endToEnd))
struct SchedulingBrowserTests {
    @Test("announce now and later, withdraw, cancel; schedule an edit, edit it, cancel it", .timeLimit(.minutes(5)))
    func pages() async throws {
        let app = try await offPool { try DashboardBrowserTests.start() }
        defer { app.stop() }
        let (event, phones) = try await offPool { () throws -> (String, [Phone]) in
            let event = try app.createEvent(name: "Harbour Lights", venue: "Pier 4")
            var phones: [Phone] = []
            for index in 0..<3 {
                let serial = try app.issueTicket(event: event, attendee: "Holder \(index)")
                let phone = Phone(app: app)
                try #require(try phone.register(serial).status == 201)
                phones.append(phone)
            }
            return (event, phones)
        }
        let serials = try app.store.withSession(.read) { try $0.passes.passes(eventID: event, limit: 10) }.map(\.serialNumber.rawValue)
        let now = Date()
        let environment = [
            "ADMIN_TOKEN": app.adminToken, "EVENT_ID": event, "VENUE": "Pier 4", "PHONES": "3",
            "SEND_AT": DashboardLayout.localInput(now.addingTimeInterval(3 * 3_600), timeZone: "Asia/Tokyo"),
            "APPLY_AT": DashboardLayout.localInput(now.addingTimeInterval(5 * 3_600), timeZone: "Asia/Tokyo"),
        ]
        try await BrowserScript.expectPasses(
            "dashboard_scheduling.py", serverURL: app.baseURL, name: "dashboard-scheduling", environment: environment, timeLimit: .seconds(240),
            requests: { request in
                guard request == "phones-fetch" else { throw AdminSupport.Failure(description: "unknown request \(request)") }
                try await offPool {
                    // Once the announcement's job is done, each phone lists and fetches its pass.
                    try SchedulingSupport.wait("the announcement job done", timeout: 60) {
                        try app.store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 1) }.first?.state == .done
                    }
                    for (phone, serial) in zip(phones, serials) {
                        _ = try phone.changedSerials()
                        guard try phone.fetch(serial).status == 200 else { throw AdminSupport.Failure(description: "fetch failed") }
                    }
                }
            },
            keepingOutput: true
        )
        let stored = try app.store.withSession(.read) { session in
            (try session.announcements.announcements(eventID: event), try session.schedule.scheduledActions(eventID: event, kind: .announcement),
             try session.schedule.scheduledActions(eventID: event, kind: .eventEdit), try session.events.event(id: event))
        }
        #expect(stored.0.count == 1 && stored.0.first?.withdrawnAt != nil, "the page sent one announcement and withdrew it")
        #expect(stored.1.map(\.state) == [.cancelled], "and cancelled the scheduled one")
        #expect(stored.2.map(\.state) == [.cancelled], "the scheduled change was cancelled")
        #expect(try ScheduledPayload.decode(EventEditPayload.self, of: try #require(stored.2.first)).edit.venue == "Third Hall", "after its edit")
        #expect(stored.3?.venue == "Pier 4", "the event never changed")
    }
}
