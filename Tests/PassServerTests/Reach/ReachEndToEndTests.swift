import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Reach over real HTTP: phones list and fetch as Wallet does, APNs is the fake, and the admin API
/// reports how many phones hold the current pass.
@Suite("Reach: which phones hold the current pass", .offCooperativePool, .timeLimit(.minutes(4)))
struct ReachEndToEndTests {
    /// `reach` of an event or a job, as integers.
    static func reach(_ app: TestApp, _ path: String) throws -> [String: Int] {
        let body = try app.admin("GET", path).jsonObject
        return ((body?["reach"] as? [String: Any]) ?? [:]).compactMapValues { $0 as? Int }
    }

    /// The devices of a ticket as the admin API shows them.
    static func devices(_ app: TestApp, serial: String) throws -> [[String: Any]] {
        (try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject?["devices"] as? [[String: Any]]) ?? []
    }

    @Test(
        "100 phones, an event edit: 0 up to date until phones ask, 60 after 60 list and fetch; pushes delivered and failed",
        .timeLimit(.minutes(4)), arguments: Backend.allCases
    )
    func hundredPhones(backend: Backend) async throws {
        let (app, fake) = try AdminSupport.startWithFakeAPNs(backend)
        defer { app.stop(); fake.shutdown() }
        let event = try app.createEvent()
        var phones: [(phone: Phone, serial: String, tag: String?, lastModified: String?)] = []
        for index in 0..<100 {
            let serial = try app.issueTicket(event: event, attendee: "Guest \(index)")
            let phone = Phone(app: app)
            #expect(try phone.register(serial).status == 201)
            phones.append((phone, serial, nil, nil))
        }
        #expect(try Self.reach(app, "/admin/v1/events/\(event)") == [
            "devices": 100, "devicesUpToDate": 0, "pushesPending": 0, "pushesFailed": 0, "pushesDelivered": 0,
        ], "registered, but no phone has asked yet")

        // As Wallet does after adding a pass: list, then fetch. Everyone is up to date.
        for index in phones.indices {
            let listed = try phones[index].phone.changedSerials()
            #expect(listed.serials == [phones[index].serial])
            let fetched = try phones[index].phone.fetch(phones[index].serial)
            #expect(fetched.status == 200)
            phones[index].tag = listed.lastUpdated
            phones[index].lastModified = fetched.header("Last-Modified")
        }
        #expect(try Self.reach(app, "/admin/v1/events/\(event)")["devicesUpToDate"] == 100)

        // Three tokens are refused for good (a malformed-request answer: failed, not retried).
        let refused = phones.prefix(3).map(\.phone.pushToken)
        for token in refused { fake.script(token: token, [.error(status: 400, reason: "BadPriority")]) }

        let edit = try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Osaka Dome"}"#)
        #expect(edit.status == 200)
        let job = try #require((edit.jsonObject?["job"] as? [String: Any])?["id"] as? String)
        let jobReach = try Self.reach(app, "/admin/v1/jobs/\(job)")
        #expect(jobReach["devices"] == 100)
        #expect(jobReach["devicesUpToDate"] == 0, "the job's change has reached no phone yet")

        var settled: [String: Int] = [:]
        try await eventually("job done and its pushes settled: job reach \(settled); fake answered \(fake.pushes.map(\.status))", timeout: 90) {
            let state = try? app.admin("GET", "/admin/v1/jobs/\(job)").jsonObject?["state"] as? String
            settled = (try? Self.reach(app, "/admin/v1/jobs/\(job)")) ?? [:]
            return state == "done" && settled["pushesPending"] == 0 && settled["pushesDelivered"] == 97 && settled["pushesFailed"] == 3
        }
        #expect(fake.pushes.count == 100)
        #expect(settled["devices"] == 100)
        #expect(settled["devicesUpToDate"] == 0, "pushed, but no phone has asked yet")
        #expect(try Self.reach(app, "/admin/v1/events/\(event)") == [
            "devices": 100, "devicesUpToDate": 0, "pushesPending": 0, "pushesFailed": 3, "pushesDelivered": 97,
        ])

        // 60 phones ask what changed and fetch it; one more only asks.
        for index in 0..<61 {
            let listed = try phones[index].phone.changedSerials(since: phones[index].tag)
            #expect(listed.serials == [phones[index].serial])
            guard index < 60 else { continue }
            let fetched = try phones[index].phone.fetch(phones[index].serial, ifModifiedSince: phones[index].lastModified)
            #expect(fetched.status == 200)
        }
        #expect(try Self.reach(app, "/admin/v1/jobs/\(job)")["devicesUpToDate"] == 60)
        #expect(try Self.reach(app, "/admin/v1/events/\(event)")["devicesUpToDate"] == 60)
        // Asking and fetching again changes nothing.
        let again = try phones[0].phone.changedSerials(since: phones[0].tag)
        #expect(try phones[0].phone.fetch(phones[0].serial).status == 200)
        #expect(try Self.reach(app, "/admin/v1/jobs/\(job)")["devicesUpToDate"] == 60)

        // The ticket view: per device, what it was told and whether it holds the current pass.
        let fetchedDevice = try #require(try Self.devices(app, serial: phones[0].serial).first)
        #expect(fetchedDevice["upToDate"] as? Bool == true)
        #expect(fetchedDevice["toldTag"] as? String == again.lastUpdated)
        #expect(fetchedDevice["toldAt"] is String)
        #expect((fetchedDevice["id"] as? String)?.count == 16)
        #expect(fetchedDevice["id"] as? String != phones[0].phone.deviceLibraryIdentifier, "the device library id is the phone's secret")
        let askedOnly = try #require(try Self.devices(app, serial: phones[60].serial).first)
        #expect(askedOnly["upToDate"] as? Bool == false)
        #expect(askedOnly["toldTag"] as? String == again.lastUpdated, "told the new revision, never fetched it")
        let untouched = try #require(try Self.devices(app, serial: phones[99].serial).first)
        #expect(untouched["upToDate"] as? Bool == false)
        #expect(untouched["toldTag"] as? String == phones[99].tag, "still holds what it was told before the edit")
    }

    @Test("a phone that installs from the download link and gets a 304 is up to date", arguments: Backend.allCases)
    func notModifiedCounts(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let issued = try #require(try app.admin("POST", "/admin/v1/events/\(event)/tickets", json: #"{"attendeeName":"Ada"}"#).jsonObject)
        let serial = try #require(issued["serialNumber"] as? String)
        let download = try app.request("GET", try AdminSupport.path(of: issued["downloadURL"] as? String))
        #expect(download.status == 200)
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        #expect(try phone.changedSerials().serials == [serial])
        #expect(try Self.devices(app, serial: serial).first?["upToDate"] as? Bool == false, "a download link serves no device")
        #expect(try phone.fetch(serial, ifModifiedSince: download.header("Last-Modified")).status == 304)
        #expect(try Self.devices(app, serial: serial).first?["upToDate"] as? Bool == true)
        #expect(try Self.reach(app, "/admin/v1/events/\(event)")["devicesUpToDate"] == 1)
        let ticket = try #require(try app.admin("GET", "/admin/v1/tickets/\(serial)").jsonObject)
        #expect(ticket["servedRevision"] as? Int == ticket["revision"] as? Int)
    }

    @Test("two phones on one ticket: one phone's fetch counts for both once both were told", arguments: Backend.allCases)
    func twoPhonesOneTicket(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let (first, second) = (Phone(app: app), Phone(app: app))
        #expect(try first.register(serial).status == 201)
        #expect(try second.register(serial).status == 201)
        _ = try first.changedSerials()
        #expect(try first.fetch(serial).status == 200)
        #expect(try Self.reach(app, "/admin/v1/events/\(event)")["devicesUpToDate"] == 1, "the second phone was never told")
        _ = try second.changedSerials()
        // The server cannot tell which phone fetched: the pass was served, and both were told.
        #expect(try Self.reach(app, "/admin/v1/events/\(event)")["devicesUpToDate"] == 2)
    }

    @Test("the dashboard's event page counts a phone as soon as it has fetched", arguments: Backend.allCases)
    func dashboardCountsAtOnce(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let (client, _) = try DashboardClient.signIn(app, token: app.adminToken)
        func upToDate() throws -> String? {
            let page = try client.get("/admin/events/\(event)").text
            return page.firstMatch(of: /id="count-up-to-date">([^<]*)</).map { String($0.1) }
        }
        #expect(try upToDate() == "0")
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        _ = try phone.changedSerials()
        #expect(try phone.fetch(serial).status == 200)
        #expect(try upToDate() == "1")
    }
}
