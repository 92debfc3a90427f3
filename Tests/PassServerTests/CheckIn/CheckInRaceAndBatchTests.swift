import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Synchronization
import Testing

@testable import PassServer

/// Two scanners at once, and offline batches, over real HTTP on both backends.
@Suite("Check-in: concurrent scanners and offline batches", .offCooperativePool, .timeLimit(.minutes(5)))
struct CheckInRaceAndBatchTests {
    static let rounds = 40

    @Test("two scanners checking in the same ticket at the same instant: exactly one 200", arguments: Backend.allCases)
    func twoScannersAtOnce(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let scanner = try Scanner(app)
        let event = try app.createEvent()
        let serials = try Scanner.issue(Self.rounds, app: app, event: event)
        var firstWon = 0
        for (round, serial) in serials.enumerated() {
            let code = try scanner.code(serial)
            let (north, south) = try await ConcurrentEditTests.race(
                app, token: scanner.token,
                ("POST", "/admin/v1/checkins", #"{"code":"\#(code)","gate":"North"}"#),
                ("POST", "/admin/v1/checkins", #"{"code":"\#(code)","gate":"South"}"#)
            )
            #expect([north.status, south.status].sorted() == [200, 409], "round \(round): \(north.status) \(north.text) / \(south.status) \(south.text)")
            let (winner, loser) = north.status == 200 ? (north, south) : (south, north)
            if north.status == 200 { firstWon += 1 }
            // The refused one is told the winner's check-in.
            #expect(loser.jsonObject?["checkedInAt"] as? String == winner.jsonObject?["checkedInAt"] as? String)
            #expect(loser.jsonObject?["gate"] as? String == winner.jsonObject?["gate"] as? String)
            let stored = try #require(try app.store.withSession(.read) { try $0.passes.pass(passTypeIdentifier: app.passType, serialNumber: "\(serial)") })
            #expect(stored.checkedInAt != nil)
        }
        print("\(backend): North first \(firstWon) of \(Self.rounds)")
        let rows = try app.store.execute("SELECT count(*) AS n FROM checkins").first.map { try $0.int("n") }
        #expect(rows == Self.rounds)
        // Both orders happened, so the requests really raced.
        #expect(firstWon > 0 && firstWon < Self.rounds)
    }

    @Test("an offline batch of 500 scans with 20 duplicates and 5 cancelled tickets: exactly those results, in scan order", arguments: Backend.allCases)
    func offlineBatch(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let scanner = try Scanner(app)
        let event = try app.createEvent()
        let serials = try Scanner.issue(480, app: app, event: event)
        #expect(serials.count == 480)
        var generator = SystemRandomNumberGenerator()
        let cancelled = Set(serials.shuffled(using: &generator).prefix(5))
        for serial in cancelled {
            #expect(try app.admin("POST", "/admin/v1/tickets/\(serial)/cancel", json: #"{"reason":"refund \#(serial.prefix(4))"}"#).status == 200)
        }
        // 480 first scans in random order, and 20 second scans of active tickets placed after
        // their first, each a second apart.
        var order = serials.shuffled(using: &generator)
        let duplicated = Array(serials.filter { !cancelled.contains($0) }.shuffled(using: &generator).prefix(20))
        for serial in duplicated {
            let first = try #require(order.firstIndex(of: serial))
            order.insert(serial, at: Int.random(in: (first + 1)...order.count))
        }
        #expect(order.count == 500)
        // The tickets were issued two hours ago; the scans made over the last hour.
        try Scanner.backdate(app, by: 7_200)
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3_600).rounded(.down))
        let scans = try order.enumerated().map { index, serial in
            (code: try scanner.code(serial), gate: "G\(index % 4)", at: start.addingTimeInterval(Double(index)))
        }
        var seen: Set<String> = []
        var firstTime: [String: String] = [:]
        let expected = order.enumerated().map { index, serial -> String in
            if cancelled.contains(serial) { return "cancelled" }
            if seen.insert(serial).inserted {
                firstTime[serial] = ISODate.format(start.addingTimeInterval(Double(index)))
                return "checked_in"
            }
            return "already_checked_in"
        }

        let answer = try scanner.batch(scans)
        #expect(answer.status == 200, "\(answer.text.prefix(300))")
        let results = try #require(answer.jsonObject?["results"] as? [[String: Any]])
        #expect(results.count == 500)
        #expect(results.map { $0["result"] as? String ?? "?" } == expected)
        #expect(results.map { $0["index"] as? Int ?? -1 } == Array(0..<500))
        #expect(results.map { $0["ticket"] as? String ?? "?" } == order)
        let statuses = ["checked_in": 200, "already_checked_in": 409, "cancelled": 410]
        #expect(results.map { $0["status"] as? Int ?? 0 } == expected.map { statuses[$0] ?? 0 })
        #expect(answer.jsonObject?["counts"] as? [String: Int] == ["checked_in": 475, "already_checked_in": 20, "cancelled": 5])
        // Duplicates are told the first scan's time; cancelled tickets their reason.
        for (index, result) in results.enumerated() where expected[index] != "cancelled" {
            #expect(result["checkedInAt"] as? String == firstTime[order[index]], "scan \(index)")
        }
        for (index, result) in results.enumerated() where expected[index] == "cancelled" {
            #expect(result["reason"] as? String == "refund \(order[index].prefix(4))")
        }
        let count = try app.request("GET", "/admin/v1/events/\(event)/checkins", headers: scanner.headers)
        #expect(count.jsonObject?["checkedIn"] as? Int == 475)
        #expect(count.jsonObject?["total"] as? Int == 475)

        // Sent again, every scan is a duplicate (or cancelled) and nothing changes.
        let again = try scanner.batch(Array(scans.prefix(50)))
        let againResults = try #require(again.jsonObject?["results"] as? [[String: Any]], "\(again.text.prefix(300))")
        #expect(againResults.count == 50)
        #expect(againResults.allSatisfy { ($0["status"] as? Int).map { [409, 410].contains($0) } ?? false })
    }

    @Test("batch limits: 1,001 scans is 400 too_many_scans; one invalid scan refuses the batch and applies nothing", arguments: [Backend.sqlite])
    func batchLimits(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let scanner = try Scanner(app)
        let serial = try app.issueTicket(event: try app.createEvent())
        let code = try scanner.code(serial)
        let now = Date().addingTimeInterval(-10)
        let tooMany = try scanner.batch(Array(repeating: (code, "G", now), count: 1_001))
        #expect(tooMany.status == 400)
        #expect(tooMany.errorCode == "too_many_scans")
        #expect(tooMany.text.contains("1000"))
        let atLimit = try scanner.batch(Array(repeating: (code, "G", now), count: 1_000))
        #expect(atLimit.status == 200)
        #expect(try app.admin("DELETE", "/admin/v1/tickets/\(serial)/checkin").status == 200)

        let body = #"{"scans":[{"code":"\#(code)","scannedAt":"\#(ISODate.format(now))"},{"code":"\#(code)"},"x"]}"#
        let invalid = try app.request("POST", "/admin/v1/checkins:batch", headers: scanner.headers, body: Array(body.utf8))
        #expect(invalid.status == 400)
        #expect(invalid.text.contains("scans[1].scannedAt") && invalid.text.contains("scans[2]"))
        let ticket = try app.admin("GET", "/admin/v1/tickets/\(serial)")
        #expect(ticket.jsonObject?["checkedInAt"] == nil, "nothing of a refused batch was applied")
        #expect(try app.request("POST", "/admin/v1/checkins:batch", headers: scanner.headers, body: Array(#"{"scans":{}}"#.utf8)).status == 400)
    }
}
