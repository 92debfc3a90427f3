import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Synchronization
import Testing

@testable import PassServer

/// The scanner page in real headless Chromium (Tests/Browser/scanner*.py), including scans kept
/// while the server is really stopped and sent once it is started again on the same port and
/// database.
@Suite("Scanner page in a browser", .offCooperativePool, .tags(.endToEnd))
struct ScannerBrowserTests {
    /// Configuration a browser on this machine can use: an http public URL, so the cookie is not Secure.
    static let browsable: @Sendable (inout Configuration) -> Void = {
        $0.http.publicURL = URL(string: "http://127.0.0.1")
        $0.http.allowInsecurePublicURL = true
    }

    /// The server under test, which the script may ask to stop and to start again: the same port,
    /// database, certificates and token secret, so the page's session and the tickets' codes still work.
    final class Restartable: Sendable {
        struct Failure: Error, CustomStringConvertible {
            var description: String
        }

        let backend: Backend
        let first: TestApp
        let port: Int
        private let current: Mutex<TestApp?>
        /// When each stop and each start happened, in order.
        let stops = Mutex<[Date]>([])
        let starts = Mutex<[Date]>([])

        init(_ backend: Backend) async throws {
            self.backend = backend
            // The restarts take the same port (`RestartablePort`: one nothing else takes meanwhile).
            let port = try RestartablePort.free()
            first = try await offPool {
                try TestApp.start(backend) {
                    ScannerBrowserTests.browsable(&$0)
                    $0.http.port = port
                }
            }
            self.port = port
            current = Mutex(first)
        }

        /// The running app; fails while it is stopped.
        var app: TestApp {
            get throws {
                guard let app = current.withLock({ $0 }) else { throw Failure(description: "the server is stopped") }
                return app
            }
        }

        /// Stops the server and checks its port then refuses connections.
        func stop() async throws {
            guard let app = current.withLock({ app in defer { app = nil }; return app }) else { throw Failure(description: "already stopped") }
            await offPool { app.stop() }
            stops.withLock { $0.append(Date()) }
            var refusal = ""
            do {
                let descriptor = try TestClient.connect(port: port, timeout: 2)
                close(descriptor)
            } catch {
                refusal = "\(error)"
            }
            guard refusal.contains("errno \(ECONNREFUSED)") else {
                throw Failure(description: "port \(port) still takes connections after the stop (\(refusal.isEmpty ? "connected" : refusal))")
            }
        }

        /// Starts a new application on the same port and database.
        func start() async throws {
            guard current.withLock({ $0 == nil }) else { throw Failure(description: "already running") }
            starts.withLock { $0.append(Date()) }
            let (backend, first, port) = (backend, first, port)
            let app = try await offPool {
                try TestApp.start(backend, databaseURL: first.databaseURL, certificates: first.certificates) {
                    ScannerBrowserTests.browsable(&$0)
                    $0.http.port = port
                }
            }
            current.withLock { $0 = app }
        }

        func handle(_ request: String) async throws {
            switch request {
            case "stop-server": try await stop()
            case "start-server": try await start()
            default: throw Failure(description: "unknown request \(request)")
            }
        }

        /// Stops whichever app is running (at the end of the test).
        func stopAll() async {
            if let app = current.withLock({ app in defer { app = nil }; return app }) { await offPool { app.stop() } }
        }
    }

    @Test(
        "door staff scan: green, amber, red as text; offline scans kept through a stopped server and a reload, then sent",
        .timeLimit(.minutes(10)), arguments: Backend.allCases
    )
    func scanner(backend: Backend) async throws {
        let server = try await Restartable(backend)
        do {
            try await run(server)
        } catch {
            await server.stopAll()
            throw error
        }
        await server.stopAll()
    }

    private func run(_ server: Restartable) async throws {
        let app = server.first
        let (event, setup) = try await offPool { () throws -> (String, [String: String]) in
            let event = try app.createEvent(name: "Door Night")
            let ada = try app.issueTicket(event: event, attendee: "Ada Lovelace", seat: "A1")
            let hostile = try app.issueTicket(event: event, attendee: "<img src=x onerror=alert(1)>", seat: "B2")
            let cancelled = try app.issueTicket(event: event, attendee: "Gone Away")
            guard try app.admin("POST", "/admin/v1/tickets/\(cancelled)/cancel", json: #"{"reason":"refund"}"#).status == 200 else {
                throw Restartable.Failure(description: "the ticket was not cancelled")
            }
            let offline = try Scanner.issue(4, app: app, event: event)
            let other = try app.issueTicket(event: try app.createEvent(name: "Another Night"), attendee: "Other Guest")
            let codes = try Scanner(app)
            let adaCode = try codes.code(ada)
            return (event, [
                "SCANNER_TOKEN": codes.token, "EVENT_ID": event, "CODE_ADA": adaCode, "CODE_HOSTILE": try codes.code(hostile),
                "CODE_CANCELLED": try codes.code(cancelled), "CODE_FORGED": String(adaCode.dropLast()) + (adaCode.hasSuffix("A") ? "B" : "A"),
                "OFFLINE_CODES": try offline.prefix(3).map { try codes.code($0) }.joined(separator: ","),
                "RELOAD_CODE": try codes.code(offline[3]), "TOTAL": "6", "CODE_OTHER_EVENT": try codes.code(other), "CODE_BARE": ada,
                "OFFLINE_SERIALS": offline.joined(separator: ","),
            ])
        }
        try await BrowserScript.expectPasses(
            "scanner.py", serverURL: app.baseURL, name: "scanner-\(server.backend.rawValue)", environment: setup, timeLimit: .seconds(300),
            requests: { try await server.handle($0) }
        )

        // On the server, through the API of the app running now: the kept scans were checked in
        // at the times they were made (while the server was stopped), at the page's gate, in scan order.
        let stops = server.stops.withLock { $0 }
        let starts = server.starts.withLock { $0 }
        try #require(stops.count == 2 && starts.count == 2, "stops \(stops), starts \(starts)")
        let current = try server.app
        let serials = try #require(setup["OFFLINE_SERIALS"]).split(separator: ",").map(String.init)
        let tickets = try await offPool { try serials.map { try current.admin("GET", "/admin/v1/tickets/\($0)") } }.map { $0.jsonObject ?? [:] }
        let times = tickets.map { ($0["checkedInAt"] as? String).flatMap(ISODate.parse) }
        for (index, time) in times.enumerated() {
            let window = index < 3 ? (stops[0], starts[0]) : (stops[1], starts[1])
            let checkedIn = try #require(time, "ticket \(index) is not checked in: \(tickets[index])")
            #expect(checkedIn >= window.0.addingTimeInterval(-1) && checkedIn <= window.1.addingTimeInterval(1), "ticket \(index) checked in at \(checkedIn), not while the server was stopped \(window)")
        }
        #expect(times[0]! <= times[1]! && times[1]! <= times[2]!, "scan order \(times)")
        let gates = try await offPool { () throws -> [String] in
            try current.store.execute("SELECT gate FROM checkins WHERE event_id = \(event) ORDER BY checked_in_at").map { try $0.string("gate") }
        }
        #expect(gates == Array(repeating: "North", count: 6), "\(gates)")
        let count = try await offPool { try current.admin("GET", "/admin/v1/events/\(event)/checkins") }.jsonObject
        #expect(count?["checkedIn"] as? Int == 6)
        #expect(count?["total"] as? Int == 6)
    }

    @Test("a viewer's scanner page has no scan input and its check-in POST is refused", .timeLimit(.minutes(5)))
    func viewer() async throws {
        let app = try await TestApp.startOffPool(.postgres, configure: Self.browsable)
        defer { app.stop() }
        let (event, serial, code, viewerToken) = try await offPool { () throws -> (String, String, String, String) in
            let event = try app.createEvent(name: "Viewer Door")
            let serial = try app.issueTicket(event: event)
            return (event, serial, try Scanner(app).code(serial), try AdminRoleTests.token(app, role: .viewer))
        }
        try await BrowserScript.expectPasses(
            "scanner_viewer.py", serverURL: app.baseURL, name: "scanner-viewer",
            environment: ["VIEWER_TOKEN": viewerToken, "EVENT_ID": event, "CODE": code]
        )
        // Not checked in by the refused POST; a scanner's scan of the same code is.
        let ticket = try await offPool { try app.admin("GET", "/admin/v1/tickets/\(serial)") }.jsonObject
        #expect(ticket?["checkedInAt"] == nil)
        #expect(try await offPool { try Scanner(app).scan(code).status } == 200)
    }
}
