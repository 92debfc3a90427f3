import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

@Suite("pass-server-bench tokens: the ApplePass tokens bench/device.sh uses", .offCooperativePool, .timeLimit(.minutes(3)), .tags(.endToEnd))
struct DeviceBenchTokensTests {
    @Test("prints serial<TAB>token for every pass of the event, as the server derives them", arguments: Backend.allCases)
    func printsTokens(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let serials = try (0..<3).map { try app.issueTicket(event: event, attendee: "Bench \($0)") }
        _ = try app.issueTicket(event: try app.createEvent(name: "Other Night"))

        let secret = String(repeating: "07", count: 32)  // TestApp's TOKEN_SECRET
        let result = try PassServerExecutable.run(
            ["tokens", "--event", event, "--database-url", app.databaseURL], environment: ["TOKEN_SECRET": secret], program: "pass-server-bench"
        )
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(lines.count == 3, "only the event's passes")
        #expect(Set(lines.compactMap(\.first)) == Set(serials))
        #expect(lines.allSatisfy { $0.count == 2 }, "every line is serial<TAB>token: \(result.standardOutput)")
        for line in lines where line.count == 2 {
            #expect(line[1] == app.authenticationToken(serial: line[0]))
            #expect(try Phone(app: app).fetch(line[0]).status == 200, "the printed token authenticates")
        }

        let missing = try PassServerExecutable.run(["tokens", "--event", event, "--database-url", app.databaseURL], program: "pass-server-bench")
        #expect(missing.status != 0, "without TOKEN_SECRET the tokens cannot be derived")
        #expect(missing.standardError.contains("TOKEN_SECRET"))
    }
}
