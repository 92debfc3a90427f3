import FakeAPNs
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Announcements end to end on both backends, with the local fake APNs: each phone holding a
/// valid pass is pushed once, fetches a pass whose first back field carries the text with
/// `changeMessage` `%@` (Wallet's lock-screen alert), a second alerting one within the interval is
/// refused naming when it is allowed, a scheduled one goes out at its time, and a withdrawal takes
/// the field off again without an alert.
@Suite("Announcements", .offCooperativePool, .timeLimit(.minutes(6)))
struct AnnouncementTests {
    /// An event with four tickets: phone A holds the first two, phone B the third, phone C the
    /// fourth, which is cancelled. Every phone has fetched its passes.
    struct Setup: Sendable {
        let app: TestApp
        let fake: FakeAPNs
        let event: String
        let serials: [String]
        let phones: [Phone]
        /// Each pass as its phone holds it (the bundle, by serial), its `Last-Modified`, and each
        /// phone's tag.
        var held: [String: [UInt8]] = [:]
        var lastModified: [String: String] = [:]
        var tags: [String?] = []

        init(_ backend: Backend) throws {
            let (app, fake) = try AdminSupport.startWithFakeAPNs(backend)
            (self.app, self.fake) = (app, fake)
            let event = try app.createEvent(name: "Harbour Lights", venue: "Pier 4")
            self.event = event
            let serials = try (0..<4).map { try app.issueTicket(event: event, attendee: "Holder \($0)", seat: "A\($0)") }
            self.serials = serials
            let phones = [Phone(app: app), Phone(app: app), Phone(app: app)]
            self.phones = phones
            for (index, serial) in serials.enumerated() {
                try #require(try phones[Self.holder(index)].register(serial).status == 201)
            }
            try #require(try app.admin("POST", "/admin/v1/tickets/\(serials[3])/cancel", json: "{}").status == 200)
            for phone in phones { tags.append(try phone.changedSerials().lastUpdated) }
            for (index, serial) in serials.enumerated() {
                let response = try phones[Self.holder(index)].fetch(serial)
                try #require(response.status == 200)
                held[serial] = response.body
                lastModified[serial] = response.header("Last-Modified")
            }
            // The cancellation's push is out before anything is counted.
            try SchedulingSupport.wait("the cancellation's push sent") { try SchedulingSupport.outboxDrained(app) }
        }

        /// Which phone holds the ticket at `index`.
        static func holder(_ index: Int) -> Int { index < 2 ? 0 : index == 2 ? 1 : 2 }

        /// pass.json of the pass `serial` as its phone held it after the setup.
        func heldPass(_ serial: String) throws -> [String: Any] {
            try PassArchive.passJSON(try #require(held[serial]))
        }

        func stop() {
            app.stop()
            fake.shutdown()
        }
    }

    @Test("each phone with a valid pass is pushed once and fetches the announcement with changeMessage %@", arguments: Backend.allCases)
    func sent(backend: Backend) async throws {
        let setup = try await offPool { try Setup(backend) }
        defer { setup.stop() }
        let (app, fake) = (setup.app, setup.fake)
        let pushesBefore = SchedulingSupport.pushes(fake)
        let sent = try #require(try await offPool { try SchedulingSupport.announce(app, event: setup.event, message: "Doors open at 18:00 — gate B <closed> & \"busy\"") }.jsonObject)
        #expect(sent["state"] as? String == "sent")
        #expect(sent["current"] as? Bool == true)
        let job = try #require(sent["jobId"] as? String)
        try await SchedulingSupport.settled(app, job: job)

        // One push per phone holding a valid pass; the phone holding only a cancelled one: none.
        let pushes = SchedulingSupport.pushes(fake)
        let phones = setup.phones
        #expect(pushes[phones[0].pushToken, default: 0] - pushesBefore[phones[0].pushToken, default: 0] == 1, "phone A, two passes: one push")
        #expect(pushes[phones[1].pushToken, default: 0] - pushesBefore[phones[1].pushToken, default: 0] == 1, "phone B: one push")
        #expect(pushes[phones[2].pushToken, default: 0] == pushesBefore[phones[2].pushToken, default: 0], "phone C holds a cancelled pass: no push")

        let listed = try phones[0].changedSerials(since: setup.tags[0])
        #expect(Set(listed.serials) == Set(setup.serials.prefix(2)), "phone A is told both its passes changed")
        #expect(try phones[1].changedSerials(since: setup.tags[1]).serials == [setup.serials[2]])
        #expect(try phones[2].changedSerials(since: setup.tags[2]).status == 204, "the cancelled pass did not change")
        for (index, serial) in setup.serials.prefix(3).enumerated() {
            let phone = phones[Setup.holder(index)]
            let response = try phone.fetch(serial, ifModifiedSince: setup.lastModified[serial])
            #expect(response.status == 200, "never a 304 for a pass whose announcement changed")
            let pass = try PassArchive.passJSON(response.body)
            let first = try #require(SchedulingSupport.backFields(pass).first)
            #expect(first["key"] as? String == "announcement")
            #expect(first["value"] as? String == "Doors open at 18:00 — gate B <closed> & \"busy\"")
            #expect(first["changeMessage"] as? String == "%@")
            let alerts = SchedulingSupport.alerts(from: try setup.heldPass(serial), to: pass)
            #expect(alerts == ["Doors open at 18:00 — gate B <closed> & \"busy\""], "the lock screen shows the text alone: \(alerts)")
        }
        let cancelled = try PassArchive.passJSON(try phones[2].fetch(setup.serials[3]).body)
        #expect(AdminSupport.field("announcement", in: cancelled) == nil, "a cancelled ticket shows no announcement")

        // Listed on the event with its reach: phones A and B listed and fetched (three registrations of valid passes).
        try await eventually("the reach counts the three fetched passes", timeout: 30) {
            let list = try app.admin("GET", "/admin/v1/events/\(setup.event)/announcements").jsonObject
            let item = (list?["items"] as? [[String: Any]])?.first
            let reach = item?["reach"] as? [String: Any]
            return reach?["devicesUpToDate"] as? Int == 3 && reach?["devices"] as? Int == 3
        }
    }

    @Test("a second alerting announcement within 10 minutes is refused with the time it is allowed; a silent one goes", arguments: Backend.allCases)
    func pacing(backend: Backend) async throws {
        let app = try await offPool { try TestApp.start(backend) }
        defer { app.stop() }
        try await offPool {
            let event = try app.createEvent()
            _ = try app.issueTicket(event: event)
            let first = try #require(try SchedulingSupport.announce(app, event: event, message: "Doors open at 18:00").jsonObject)
            let sentAt = try #require(try app.store.withSession(.read) { try $0.announcements.announcement(id: first["id"] as? String ?? "") }?.sentAt)
            let refused = try app.admin("POST", "/admin/v1/events/\(event)/announcements", json: #"{"message":"Gate B is closed"}"#)
            #expect(refused.status == 409)
            #expect(refused.errorCode == "announcement_too_soon")
            let allowed = Date(timeIntervalSince1970: sentAt.addingTimeInterval(600).timeIntervalSince1970.rounded(.up))
            #expect(refused.text.contains(ISODate.format(allowed, timeZone: "Asia/Tokyo")), "names when it is allowed: \(refused.text)")
            #expect(refused.text.contains("10 minutes"))
            // Nothing was sent by the refusal; a silent one (no alert) is not paced.
            let silent = try #require(try SchedulingSupport.announce(app, event: event, message: "Gate B is closed", notify: false).jsonObject)
            #expect(silent["state"] as? String == "sent" && silent["notify"] as? Bool == false)
            let items = try #require(try app.admin("GET", "/admin/v1/events/\(event)/announcements").jsonObject?["items"] as? [[String: Any]])
            #expect(items.map { $0["message"] as? String } == ["Gate B is closed", "Doors open at 18:00"])
            #expect(items.map { $0["current"] as? Bool } == [true, false], "the later one replaced the first on the passes")
            // Scheduled within the interval of the sent one: refused too; ten minutes on, taken.
            let soon = ISODate.format(sentAt.addingTimeInterval(300))
            let scheduled = try app.admin("POST", "/admin/v1/events/\(event)/announcements", json: #"{"message":"Later","sendAt":"\#(soon)"}"#)
            #expect(scheduled.status == 409 && scheduled.errorCode == "announcement_too_soon")
            _ = try SchedulingSupport.announce(app, event: event, message: "Later", sendAt: sentAt.addingTimeInterval(601))
        }
    }

    @Test("ANNOUNCEMENT_INTERVAL 0 lets alerting announcements follow one another", arguments: Backend.allCases)
    func noInterval(backend: Backend) async throws {
        let app = try await offPool { try TestApp.start(backend) { $0.announcements.interval = 0 } }
        defer { app.stop() }
        try await offPool {
            let event = try app.createEvent()
            for message in ["One", "Two", "Three"] { _ = try SchedulingSupport.announce(app, event: event, message: message) }
        }
    }

    @Test("withdrawing removes the back field after a fetch, with no alert", arguments: Backend.allCases)
    func withdrawn(backend: Backend) async throws {
        let setup = try await offPool { try Setup(backend) }
        defer { setup.stop() }
        let (app, phone, serial, event) = (setup.app, setup.phones[1], setup.serials[2], setup.event)
        let sent = try #require(try await offPool { try SchedulingSupport.announce(app, event: event, message: "Bring a coat") }.jsonObject)
        let id = try #require(sent["id"] as? String)
        try await SchedulingSupport.settled(app, job: try #require(sent["jobId"] as? String))
        let announced = try PassArchive.passJSON(try await offPool { try phone.fetch(serial) }.body)
        #expect(AdminSupport.field("announcement", in: announced)?["value"] as? String == "Bring a coat")
        // A design change re-pushes the pass; the announcement stays and alerts nobody again.
        let design = try await offPool { try app.admin("PUT", "/admin/v1/events/\(event)/design", json: ##"{"backgroundColor":"#203040"}"##) }
        try await SchedulingSupport.settled(app, job: try #require((design.jsonObject?["job"] as? [String: Any])?["id"] as? String))
        let carrying = try await offPool { try phone.fetch(serial) }
        let carried = try PassArchive.passJSON(carrying.body)
        #expect(carried["backgroundColor"] as? String == "rgb(32, 48, 64)")
        #expect(AdminSupport.field("announcement", in: carried)?["value"] as? String == "Bring a coat")
        #expect(SchedulingSupport.alerts(from: announced, to: carried).isEmpty, "a design change alerts nobody")
        let tag = try phone.changedSerials().lastUpdated
        let pushesBefore = SchedulingSupport.pushes(setup.fake)[phone.pushToken, default: 0]

        let withdrawn = try await offPool { try app.admin("POST", "/admin/v1/events/\(event)/announcements/\(id)/withdraw") }
        #expect(withdrawn.status == 200, "\(withdrawn.text)")
        #expect(withdrawn.jsonObject?["state"] as? String == "withdrawn" && withdrawn.jsonObject?["current"] as? Bool == false)
        let job = try #require(try app.store.withSession(.read) { try $0.announcements.announcement(id: id) }?.withdrawJobID, "the withdrawal re-pushes the passes")
        try await SchedulingSupport.settled(app, job: job)
        #expect(SchedulingSupport.pushes(setup.fake)[phone.pushToken, default: 0] == pushesBefore + 1, "the phone is pushed to fetch the pass")
        #expect(try phone.changedSerials(since: tag).serials == [serial])
        let response = try await offPool { try phone.fetch(serial, ifModifiedSince: carrying.header("Last-Modified")) }
        #expect(response.status == 200)
        let pass = try PassArchive.passJSON(response.body)
        #expect(AdminSupport.field("announcement", in: pass) == nil, "the back field is gone")
        #expect(SchedulingSupport.alerts(from: carried, to: pass).isEmpty, "and nothing alerts the lock screen")
        // The same model of Wallet alerted for the announcement's arrival.
        #expect(SchedulingSupport.alerts(from: try setup.heldPass(serial), to: announced) == ["Bring a coat"])
        // Withdrawing again changes nothing.
        let again = try await offPool { try app.admin("POST", "/admin/v1/events/\(event)/announcements/\(id)/withdraw") }
        #expect(again.status == 200 && again.jsonObject?["state"] as? String == "withdrawn")
    }

    @Test("a scheduled announcement goes out at its time, once", arguments: Backend.allCases)
    func scheduled(backend: Backend) async throws {
        let setup = try await offPool { try Setup(backend) }
        defer { setup.stop() }
        let (app, phone, serial) = (setup.app, setup.phones[1], setup.serials[2])
        let due = Date().addingTimeInterval(3)
        let saved = try #require(try await offPool { try SchedulingSupport.announce(app, event: setup.event, message: "Encore at 22:30", sendAt: due) }.jsonObject)
        #expect(saved["state"] as? String == "scheduled")
        let id = try #require(saved["id"] as? String)
        // Before its time: listed as scheduled, and the pass is as it was.
        let early = try await offPool { try phone.fetch(serial, ifModifiedSince: setup.lastModified[serial]) }
        #expect(early.status == 304, "nothing changed before its time")

        var sentAt: Date?
        try await eventually("the announcement is sent", timeout: 20) {
            let item = try app.admin("GET", "/admin/v1/events/\(setup.event)/announcements/\(id)").jsonObject
            guard item?["state"] as? String == "sent" else { return false }
            sentAt = try app.store.withSession(.read) { try $0.announcements.announcement(id: id) }?.sentAt
            return true
        }
        let at = try #require(sentAt)
        let action = try #require(try app.store.withSession(.read) { try $0.schedule.scheduledAction(id: id) })
        // The time as sent (whole seconds) is the one it is due at.
        #expect(abs(action.dueAt.timeIntervalSince(due)) < 1)
        #expect(at >= action.dueAt && at <= action.dueAt.addingTimeInterval(5), "sent within 5 s of its time (\(at.timeIntervalSince(action.dueAt)) s)")
        #expect(action.state == .applied && action.jobID != nil)
        try await SchedulingSupport.settled(app, job: try #require(action.jobID))
        let pass = try PassArchive.passJSON(try await offPool { try phone.fetch(serial) }.body)
        #expect(AdminSupport.field("announcement", in: pass)?["value"] as? String == "Encore at 22:30")
        let rows = try app.store.withSession(.read) { try $0.announcements.announcements(eventID: setup.event) }
        #expect(rows.map(\.id) == [id], "sent once")
    }

    @Test("bad input is refused naming the fields; an archived event takes none", arguments: Backend.allCases)
    func refusals(backend: Backend) async throws {
        let app = try await offPool { try TestApp.start(backend) }
        defer { app.stop() }
        try await offPool {
            let event = try app.createEvent()
            let long = String(repeating: "あ", count: 501)
            let cases: [(String, String)] = [
                (#"{}"#, "message: is required"),
                (#"{"message":"   \n "}"#, "message: must not be empty"),
                (#"{"message":"\#(long)"}"#, "message: must be at most 500"),
                (#"{"message":"bell \u0007"}"#, "message: must not contain control characters"),
                (#"{"message":"x","sendAt":"2020-01-01T00:00:00Z"}"#, "sendAt: must be in the future"),
                (#"{"message":"x","sendAt":"tomorrow"}"#, "sendAt: must be an ISO 8601"),
                (#"{"message":"x","notify":"yes"}"#, "notify: must be true or false"),
                (#"{"message":"x","colour":1}"#, "colour: unknown field"),
            ]
            for (body, problem) in cases {
                let response = try app.admin("POST", "/admin/v1/events/\(event)/announcements", json: body)
                #expect(response.status == 400 && response.text.contains(problem), "\(body): \(response.status) \(response.text)")
            }
            #expect(try app.store.withSession(.read) { try $0.announcements.announcements(eventID: event) }.isEmpty)
            // Line breaks are kept (CR LF as LF), surrounding blanks dropped.
            let kept = try #require(try SchedulingSupport.announce(app, event: event, message: "  Line one\r\nLine two \n", notify: false).jsonObject)
            #expect(kept["message"] as? String == "Line one\nLine two")
            #expect(try app.admin("POST", "/admin/v1/events/\(event)/archive").status == 200)
            let archived = try app.admin("POST", "/admin/v1/events/\(event)/announcements", json: #"{"message":"x","notify":false}"#)
            #expect(archived.status == 409 && archived.errorCode == "event_archived")
            #expect(try app.admin("GET", "/admin/v1/events/\(event)/announcements/AAAAAAAAAAAAAAAAAAAAAA").status == 404)
            #expect(try app.admin("POST", "/admin/v1/events/\(event)/announcements/AAAAAAAAAAAAAAAAAAAAAA/withdraw").status == 404)
        }
    }
}
