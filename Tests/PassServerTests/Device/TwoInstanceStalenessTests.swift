import Foundation
import HTTPServer
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Two real `pass-server serve` processes on one PostgreSQL database (SQLite is one process's
/// store, docs/storage.md). The organizer edits the event through one; a phone that has just
/// fetched the pass through the other (so that process holds the old revision's signed bundle)
/// asks it again once the edit's job is done, and must be told of the change and get the new pass:
/// the new venue in pass.json and a later Last-Modified. Repeated for several edits, the two
/// processes taking turns, so a bundle, a revision or a Last-Modified kept by one process across
/// another's edit would be served stale.
@Suite("Device: two serve processes, an edit through one is fetched through the other", .offCooperativePool, .serialized, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct TwoInstanceStalenessTests {
    static let edits = 6

    /// One phone's view of one pass through the server on `port`.
    struct PhoneView {
        let port: Int
        let device: String
        let passType: String
        let serial: String
        let authentication: String

        func list(since tag: String) throws -> TestResponse {
            try TestClient(port: port, timeout: 30).request("GET", "/v1/devices/\(device)/registrations/\(passType)?passesUpdatedSince=\(tag)")
        }

        func fetch(ifModifiedSince: String?) throws -> TestResponse {
            var headers = [("Authorization", "ApplePass \(authentication)")]
            if let ifModifiedSince { headers.append(("If-Modified-Since", ifModifiedSince)) }
            return try TestClient(port: port, timeout: 30).request("GET", "/v1/passes/\(passType)/\(serial)", headers: headers)
        }

        func on(_ other: Int) -> PhoneView { PhoneView(port: other, device: device, passType: passType, serial: serial, authentication: authentication) }
    }

    /// What the phone holds after a fetch: the venue its pass.json shows and its Last-Modified.
    struct Held: Equatable {
        var venue: String
        var lastModified: String
        var epoch: Int64
    }

    static func held(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) throws -> Held {
        try #require(response.status == 200, "fetch answered \(response.status) \(response.text)", sourceLocation: sourceLocation)
        let lastModified = try #require(response.header("Last-Modified"), sourceLocation: sourceLocation)
        let epoch = try #require(HTTPDate.parse(lastModified), sourceLocation: sourceLocation)
        let pass = try PassArchive.passJSON(response.body)
        let venue = try #require(AdminSupport.field("venue", in: pass)?["value"] as? String, sourceLocation: sourceLocation)
        return Held(venue: venue, lastModified: lastModified, epoch: epoch)
    }

    @Test("six edits, the two processes taking turns: the other process always serves the new revision")
    func editThroughOneFetchThroughTheOther() async throws {
        let fixture = try await offPool { try ProcessFixture(.postgres) }
        var servers: [ServerProcess] = []
        defer {
            for server in servers where server.process.isRunning { server.forceKill() }
            fixture.store.close()
        }
        let (event, passes) = try await offPool { try fixture.event(tickets: 3) }
        let pass = passes[1]
        let device = "staleness-device"
        try await offPool {
            _ = try fixture.store.withSession(.write) {
                try $0.registrations.upsertRegistration(
                    deviceLibraryIdentifier: "\(device)", pushToken: .hex(Phone.randomPushToken()), passTypeIdentifier: pass.passTypeIdentifier,
                    serialNumber: pass.serialNumber, now: Date()
                )
            }
        }
        let adminToken = AdminAuthentication.newToken()
        _ = try fixture.store.withSession(.write) { try $0.admin.createAdminToken(name: "staleness", tokenHash: TokenVault.hash(adminToken), now: Date()) }
        for _ in 0..<2 { servers.append(try fixture.launch()) }
        let ports = [try await servers[0].port(), try await servers[1].port()]
        let authentication = try fixture.vault.authenticationToken(passType: pass.passTypeIdentifier, serial: pass.serialNumber).rawValue
        let phone = PhoneView(
            port: ports[0], device: device, passType: pass.passTypeIdentifier.rawValue, serial: pass.serialNumber.rawValue, authentication: authentication
        )
        let store = fixture.store

        // What the phone holds to begin with, and the tag its first list gave it.
        let first = try await offPool { try phone.list(since: "") }
        try #require(first.status == 200, "first list answered \(first.status) \(first.text)")
        var tag = try #require(first.jsonObject?["lastUpdated"] as? String)
        var holding = try Self.held(try await offPool { try phone.fetch(ifModifiedSince: nil) })
        #expect(holding.venue == "Hall")

        for edit in 1...Self.edits {
            let (writer, reader) = edit % 2 == 1 ? (ports[0], ports[1]) : (ports[1], ports[0])
            let there = phone.on(reader)
            let (heldBefore, tagBefore) = (holding, tag)
            // The reader serves the current revision and confirms it with a 304, so it has the
            // current bundle and revision in hand when the other process edits.
            let warm = try Self.held(try await offPool { try there.fetch(ifModifiedSince: nil) })
            #expect(warm == holding, "edit \(edit): both processes serve the same revision before the edit")
            let confirmed = try await offPool { try there.fetch(ifModifiedSince: heldBefore.lastModified) }
            #expect(confirmed.status == 304, "edit \(edit): the phone holding the current pass gets 304 before the edit")
            let unchanged = try await offPool { try there.list(since: tagBefore) }
            #expect(unchanged.status == 204, "edit \(edit): nothing listed before the edit")

            let venue = "Hall \(edit)"
            let job = try await offPool {
                let response = try TestClient(port: writer, timeout: 30).request(
                    "PATCH", "/admin/v1/events/\(event)",
                    headers: [("Authorization", "Bearer \(adminToken)"), ("Content-Type", "application/json")],
                    body: Array(#"{"venue":"\#(venue)"}"#.utf8)
                )
                guard response.status == 200, let job = (response.jsonObject?["job"] as? [String: Any])?["id"] as? String else {
                    throw AdminSupport.Failure(description: "event edit answered \(response.status) \(response.text)")
                }
                return job
            }
            try await ScaleOutRepushTests.wait("edit \(edit)'s job done", timeout: 60) {
                try store.withSession(.read) { try $0.jobs.job(id: job) }?.state == .done
            }

            // Through the other process: listed with a later tag, then the new pass, not a 304.
            let listed = try await offPool { try there.list(since: tagBefore) }
            #expect(listed.status == 200, "edit \(edit): the pass is listed as changed (\(listed.status))")
            #expect(listed.jsonObject?["serialNumbers"] as? [String] == [pass.serialNumber.rawValue])
            let newTag = try #require(listed.jsonObject?["lastUpdated"] as? String)
            #expect((Int64(newTag) ?? 0) > (Int64(tag) ?? 0), "edit \(edit): the tag moves on (\(tag) → \(newTag))")
            let fetched = try await offPool { try there.fetch(ifModifiedSince: heldBefore.lastModified) }
            let now = try Self.held(fetched)
            #expect(now.venue == venue, "edit \(edit): pass.json shows the new venue through the other process")
            #expect(now.epoch > holding.epoch, "edit \(edit): Last-Modified moves on (\(holding.lastModified) → \(now.lastModified))")
            // And the process the edit went through agrees, byte for byte in what the phone checks.
            let here = try Self.held(try await offPool { try phone.on(writer).fetch(ifModifiedSince: heldBefore.lastModified) })
            #expect(here == now, "edit \(edit): both processes serve the same new revision")
            let settled = try await offPool { try there.fetch(ifModifiedSince: now.lastModified) }
            #expect(settled.status == 304, "edit \(edit): the phone holding the new pass gets 304")
            holding = now
            tag = newTag
        }
        for server in servers { server.signal(SIGTERM) }
        for server in servers { #expect(await server.waitForExit(timeout: 30) == 0) }
    }
}
