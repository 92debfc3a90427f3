import PassIdentifiers
import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer
@testable import Storage

/// `POST /admin/v1/tickets/{serialNumber}/download-link` and the links it replaces.
@Suite("Admin API: download links", .offCooperativePool, .timeLimit(.minutes(4)))
struct DownloadLinkTests {
    private func downloadPath(_ ticket: [String: Any]?) throws -> String {
        try AdminSupport.path(of: ticket?["downloadURL"] as? String)
    }

    @Test("a rotated link answers 404, the new one serves the pass; rotating again replaces it too", arguments: Backend.allCases)
    func rotation(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        let serial = try app.issueTicket(event: try app.createEvent())
        let original = try downloadPath(try await app.adminOffPool("GET", "/admin/v1/tickets/\(serial)").jsonObject)
        #expect(try await app.requestOffPool("GET", original).status == 200)
        let revision = try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") }).revision

        let rotated = try await app.adminOffPool("POST", "/admin/v1/tickets/\(serial)/download-link")
        #expect(rotated.status == 200, "\(rotated.text)")
        let second = try downloadPath(rotated.jsonObject)
        #expect(second != original)
        #expect(rotated.jsonObject?["serialNumber"] as? String == serial)
        #expect(try await app.requestOffPool("GET", original).status == 404, "the old link stops working")
        let download = try await app.requestOffPool("GET", second)
        #expect(download.status == 200)
        #expect(download.header("Content-Type") == "application/vnd.apple.pkpass")
        #expect(try downloadPath(try await app.adminOffPool("GET", "/admin/v1/tickets/\(serial)").jsonObject) == second, "the ticket shows the new link")
        #expect(try app.store.withSession(.read) {
            try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)")
        }?.revision == revision,
                "the pass does not change, so nothing is pushed")

        let third = try downloadPath(try await app.adminOffPool("POST", "/admin/v1/tickets/\(serial)/download-link", json: "{}").jsonObject)
        #expect(Set([original, second, third]).count == 3)
        #expect(try await app.requestOffPool("GET", second).status == 404)
        #expect(try await app.requestOffPool("GET", third).status == 200)

        #expect(try await app.adminOffPool("POST", "/admin/v1/tickets/nope/download-link").status == 404)
        let unknownField = try await app.adminOffPool("POST", "/admin/v1/tickets/\(serial)/download-link", json: #"{"nonce":1}"#)
        #expect(unknownField.status == 400)
        #expect(try await app.requestOffPool("GET", third).status == 200, "a refused request rotates nothing")
        #expect(try await app.requestOffPool("POST", "/admin/v1/tickets/\(serial)/download-link").status == 401)
    }

    @Test("cancelling keeps the link: the attendee downloads the voided pass", arguments: Backend.allCases)
    func cancelKeepsLink(backend: Backend) async throws {
        let app = try await TestApp.startOffPool(backend)
        defer { app.stop() }
        let serial = try app.issueTicket(event: try app.createEvent())
        let link = try downloadPath(try await app.adminOffPool("GET", "/admin/v1/tickets/\(serial)").jsonObject)
        try app.cancelTicket(serial)
        let cancelled = try await app.adminOffPool("GET", "/admin/v1/tickets/\(serial)").jsonObject
        #expect(cancelled?["status"] as? String == "cancelled")
        #expect(try downloadPath(cancelled) == link)
        let download = try await app.requestOffPool("GET", link)
        #expect(download.status == 200)
        let pass = try PassArchive.passJSON(download.body)
        #expect(pass["voided"] as? Bool == true)
    }

    @Test("a link issued before links could be rotated still works after migrating", arguments: Backend.allCases)
    func linkFromBeforeTheMigration(backend: Backend) async throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "old-links")
        let databaseURL = try backend.freshDatabaseURL(in: directory)
        let vault = TokenVault(secret: Array(repeating: 7, count: 32)) // TestApp's TOKEN_SECRET
        let passType = try #require(PassTypeIdentifier(TestCertificates.passTypeIdentifier))
        let serial: SerialNumber = "issued-before-rotation"
        let oldToken = try vault.downloadToken(passType: passType, serial: serial)

        // The schema as it was before download links had a nonce, with a ticket issued then.
        let old = try openStore(url: databaseURL)
        let authenticationTokenHash = try TokenVault.hash(vault.authenticationToken(passType: passType, serial: serial).rawValue)
        let downloadTokenHash = try TokenVault.hash(oldToken)
        // Rows written in SQL, as the server of that time wrote them (today's operations write
        // columns later migrations add).
        let eventID = "event-before-rotation"
        try old.withSession(.write) { session in
            try session.migrate(through: 3)
            try session.execute("""
                INSERT INTO events (id, name, venue, starts_at, ends_at, time_zone, template, revision, created_at, updated_at)
                VALUES (\(eventID), 'Before', 'Hall', 1900000000000, NULL, 'UTC', 'event-ticket', 1, 1800000000000, 1800000000000)
                """)
            try session.execute("""
                INSERT INTO passes (pass_type_identifier, serial_number, authentication_token_hash, download_token_hash,
                    event_id, attendee_name, status, revision, modified_at, created_at)
                VALUES (\(passType.rawValue), \(serial.rawValue), \(authenticationTokenHash),
                    \(downloadTokenHash), \(eventID), 'Ada', 'active', 1, 1800000000, 1800000000000)
                """)
            try session.execute("UPDATE counters SET value = 1 WHERE name = 'revision'")
        }
        #expect(try old.execute("SELECT download_token_hash FROM passes").count == 1)
        old.close()

        let app = try await TestApp.startOffPool(backend, databaseURL: databaseURL)
        defer { app.stop() }
        let versions = try app.store.execute("SELECT version FROM schema_migrations").map { try $0.int("version") }
        #expect(versions.contains(4))
        let download = try await app.requestOffPool("GET", "/download/\(oldToken)")
        #expect(download.status == 200, "\(download.text)")
        #expect(try PassArchive.passJSON(download.body)["serialNumber"] as? String == serial.rawValue)
        let ticket = try await app.adminOffPool("GET", "/admin/v1/tickets/\(serial.rawValue)").jsonObject
        #expect(try downloadPath(ticket) == "/download/\(oldToken)", "the admin API shows the link already handed out")
        #expect(ticket?["eventId"] as? String == eventID)

        let rotated = try downloadPath(try await app.adminOffPool("POST", "/admin/v1/tickets/\(serial.rawValue)/download-link").jsonObject)
        #expect(try await app.requestOffPool("GET", "/download/\(oldToken)").status == 404)
        #expect(try await app.requestOffPool("GET", rotated).status == 200)
    }
}
