import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Synchronization
import Testing

@testable import PassServer

/// The SQLite equivalent of a database outage: another process holds the database file's write
/// lock beyond the busy timeout. Writes are answered 503 `unavailable` with `Retry-After` (not
/// 500), reads go on (WAL), and everything works again once the lock is released.
@Suite("SQLite locked by another process", .offCooperativePool, .serialized, .timeLimit(.minutes(6)))
struct SQLiteBusyTests {
    @Test("writes while another process holds the lock: 503 with Retry-After; reads go on; then all works")
    func lockedDatabase() async throws {
        let app = try TestApp.start(.sqlite)
        defer { app.stop() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let holder = Phone(app: app)
        #expect(try holder.register(serial).status == 201)

        // Another process (here: another store on the same file) takes the write lock and keeps it.
        let other = try Storage.openStore(url: app.databaseURL)
        defer { other.close() }
        let lock = try await onOwnThread { WriteLockHolder(other) }

        let newcomer = Phone(app: app)
        let answers = Mutex<[String: TestResponse]>([:])
        let done = DispatchSemaphore(value: 0)
        // The two writes queue for the one writer connection (up to 10 s each) and then wait out
        // busy_timeout (5 s) in turn; SQLite counts the sleeps it asked for, which a loaded
        // machine stretches. The clients wait generously. (The list's reach mark waits in the
        // ledger, off the phone's time.)
        let port = app.port
        @Sendable func slow(_ method: String, _ target: String, _ headers: [(String, String)], _ body: String = "") throws -> TestResponse {
            try TestClient(port: port, timeout: 180).request(method, target, headers: headers, body: Array(body.utf8))
        }
        let requests: [(String, @Sendable () throws -> TestResponse)] = [
            ("register", {
                try slow(
                    "POST", "/v1/devices/\(newcomer.deviceLibraryIdentifier)/registrations/\(app.passTypeIdentifier)/\(serial)",
                    [newcomer.auth(serial), ("Content-Type", "application/json")], #"{"pushToken":"\#(newcomer.pushToken)"}"#
                )
            }),
            ("edit", {
                try slow(
                    "PATCH", "/admin/v1/tickets/\(serial)", [("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", "application/json")],
                    #"{"seat":"B2"}"#
                )
            }),
            ("list", { try slow("GET", "/v1/devices/\(holder.deviceLibraryIdentifier)/registrations/\(app.passTypeIdentifier)", []) }),
        ]
        for (name, request) in requests {
            Thread {
                if let response = try? request() { answers.withLock { $0[name] = response } }
                done.signal()
            }.start()
        }
        await offPool { for _ in requests { done.wait() } }
        await offPool { lock.release() }

        let during = answers.withLock { $0 }
        for name in ["register", "edit"] {
            let response = try #require(during[name], "\(name) got no answer")
            #expect(response.status == 503, "\(name): \(response.status) \(response.text)")
            #expect(response.errorCode == "unavailable")
            #expect(response.header("Retry-After") == "5")
        }
        #expect(during["list"]?.status == 200, "reads are not blocked by a writer")

        #expect(try newcomer.register(serial).status == 201)
        #expect(try app.admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"seat":"B2"}"#).status == 200)
        #expect(!app.logs.lines.contains { $0.contains("handler failed") })
    }
}
