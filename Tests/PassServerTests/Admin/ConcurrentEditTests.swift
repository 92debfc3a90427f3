import Foundation
import PassServerFixtures
import PassServerTesting
import Synchronization
import Testing

@testable import PassServer

/// Admin rules checked on the row as the update finds it, under its lock, in the same transaction:
/// two racing requests over real HTTP can never both get past a rule that only one of them may.
@Suite("Admin API: concurrent edits", .offCooperativePool, .timeLimit(.minutes(5)))
struct ConcurrentEditTests {
    static let rounds = 60

    /// Sends `first` and `second` at the same instant on two threads, each on a connection opened
    /// beforehand, with `token` (the admin token by default), and returns both answers. Waits off
    /// the cooperative pool, which other tests need.
    static func race(
        _ app: TestApp, token: String? = nil, _ first: (method: String, target: String, json: String),
        _ second: (method: String, target: String, json: String)
    ) async throws -> (TestResponse, TestResponse) {
        let requests = [first, second]
        let answers = Mutex<[Int: Result<TestResponse, any Error>]>([:])
        let ready = DispatchSemaphore(value: 0)
        let start = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let port = app.port
        let headers = [("Authorization", "Bearer \(token ?? app.adminToken)"), ("Content-Type", "application/json")]
        for (index, request) in requests.enumerated() {
            Thread {
                let client = Result { try TestClient(port: port, timeout: 30) }
                ready.signal()
                start.wait()
                // A little jitter so that either request may reach the database first.
                usleep(UInt32.random(in: 0...1_500))
                let result = Result { try client.get().request(request.method, request.target, headers: headers, body: Array(request.json.utf8)) }
                answers.withLock { $0[index] = result }
                done.signal()
            }.start()
        }
        await offPool {
            for _ in requests { ready.wait() }
            for _ in requests { start.signal() }
            for _ in requests { done.wait() }
        }
        let results = answers.withLock { $0 }
        guard let a = results[0], let b = results[1] else { throw AdminSupport.Failure(description: "a racing request did not finish") }
        return (try a.get(), try b.get())
    }

    @Test("a cancel and a rename racing: the rename never lands on a cancelled ticket", arguments: Backend.allCases)
    func cancelAndRename(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        var renameFirst = 0
        var cancelFirst = 0
        for round in 0..<Self.rounds {
            let serial = try app.issueTicket(event: event, attendee: "Before")
            let (rename, cancel) = try await Self.race(
                app, ("PATCH", "/admin/v1/tickets/\(serial)", #"{"attendeeName":"After"}"#),
                ("POST", "/admin/v1/tickets/\(serial)/cancel", #"{"reason":"refund"}"#)
            )
            let stored = try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") })
            #expect(cancel.status == 200, "round \(round): cancel answered \(cancel.status) \(cancel.text)")
            #expect(cancel.jsonObject?["status"] as? String == "cancelled")
            #expect(stored.status == .cancelled)
            switch rename.status {
            case 200:
                // The rename won: it was applied to the active ticket, and the cancel came after it.
                renameFirst += 1
                #expect(rename.jsonObject?["status"] as? String == "active", "round \(round): rename applied to a cancelled ticket")
                #expect(cancel.jsonObject?["attendeeName"] as? String == "After", "round \(round): cancel did not see the rename")
                #expect(stored.attendeeName == "After")
                let renameRevision = try #require(rename.jsonObject?["revision"] as? Int)
                let cancelRevision = try #require(cancel.jsonObject?["revision"] as? Int)
                #expect(renameRevision < cancelRevision)
                #expect(stored.revision == Int64(cancelRevision))
            case 409:
                // The cancel won: the rename was refused and changed nothing.
                cancelFirst += 1
                #expect(rename.errorCode == "ticket_cancelled")
                #expect(cancel.jsonObject?["attendeeName"] as? String == "Before")
                #expect(stored.attendeeName == "Before")
                #expect(stored.revision == Int64(try #require(cancel.jsonObject?["revision"] as? Int)))
            default:
                Issue.record("round \(round): rename answered \(rename.status) \(rename.text)")
            }
        }
        print("\(backend): rename first \(renameFirst), cancel first \(cancelFirst) of \(Self.rounds)")
        // Both orders happened, so the requests really raced.
        #expect(renameFirst > 0)
        #expect(cancelFirst > 0)
    }

    @Test("two edits of an event's start and end racing: never both accepted when together they invert it", arguments: Backend.allCases)
    func startAndEnd(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        var endFirst = 0
        var startFirst = 0
        for round in 0..<Self.rounds {
            let created = try app.admin("POST", "/admin/v1/events", json: """
                {"name":"Race","venue":"Hall","startsAt":"2027-03-01T19:00:00Z","endsAt":"2027-03-01T22:00:00Z"}
                """)
            let id = try #require(created.jsonObject?["id"] as? String)
            // Each alone is fine (20:00 ≥ 19:00; 21:00 ≤ 22:00); together the end is before the start.
            let (end, start) = try await Self.race(
                app, ("PATCH", "/admin/v1/events/\(id)", #"{"endsAt":"2027-03-01T20:00:00Z"}"#),
                ("PATCH", "/admin/v1/events/\(id)", #"{"startsAt":"2027-03-01T21:00:00Z"}"#)
            )
            let statuses = [end.status, start.status].sorted()
            #expect(statuses == [200, 400], "round \(round): \(end.status) \(end.text) / \(start.status) \(start.text)")
            let refused = end.status == 400 ? end : start
            #expect(refused.errorCode == "invalid_fields")
            #expect(refused.text.contains("endsAt"))
            if end.status == 200 { endFirst += 1 } else { startFirst += 1 }
            let stored = try #require(try app.store.withSession(.read) { try $0.events.event(id: id) })
            let ends = try #require(stored.endsAt)
            #expect(ends >= stored.startsAt, "round \(round): stored end before start")
        }
        print("\(backend): end first \(endFirst), start first \(startFirst) of \(Self.rounds)")
        #expect(endFirst > 0)
        #expect(startFirst > 0)
    }
}
