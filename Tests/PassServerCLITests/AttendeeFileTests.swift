import Foundation
import PassServerTesting
import Testing

@testable import PassServerCLI

@Suite("pass build: the attendee file", .offCooperativePool)
struct AttendeeFileTests {
    static var defaults: AttendeeFile.Defaults {
        AttendeeFile.Defaults(
            webServiceURL: "https://passes.example.com", organizationName: "Example Events", authenticationToken: { "minted-token-0123456789" }
        )
    }

    @Test("a complete file becomes the ticket; what it leaves out comes from the defaults")
    func complete() throws {
        let ticket = try AttendeeFile.ticket(from: Array(#"""
            {"serialNumber": "S-1", "eventName": "Swift Night", "venue": "Hall 1", "attendeeName": "Ada",
             "startsAt": "2027-05-01T19:30:00+09:00", "seat": "A-3"}
            """#.utf8), defaults: Self.defaults)
        #expect(ticket.serialNumber == "S-1")
        #expect(ticket.organizationName == "Example Events")
        #expect(ticket.authenticationToken == "minted-token-0123456789")
        #expect(ticket.description == "Ticket for Swift Night")
        #expect(ticket.timeZone == "UTC")
        #expect(ticket.seat == "A-3")
        #expect(ticket.startsAt == Date(timeIntervalSince1970: 1_809_167_400))
    }

    @Test("every problem is listed with its key, in one error")
    func everyProblem() {
        var defaults = Self.defaults
        defaults.organizationName = nil
        #expect {
            _ = try AttendeeFile.ticket(from: Array(#"{"serialNumber": 7, "eventName": "", "Venue": "x"}"#.utf8), defaults: defaults)
        } throws: { error in
            guard let problems = (error as? AttendeeFile.Problems)?.list else { return false }
            return problems.contains("serialNumber: must be a string, not a number")
                && problems.contains("eventName: must not be empty")
                && problems.contains("venue: required")
                && problems.contains("Venue: unknown key (did you mean venue?)")
                && problems.contains { $0.hasPrefix("organizationName: required here or as ORGANIZATION_NAME") }
        }
    }

    @Test("text that is not JSON is located by line and column")
    func syntax() {
        #expect {
            _ = try AttendeeFile.ticket(from: Array("{\n  \"serialNumber\": ,\n}".utf8), defaults: Self.defaults)
        } throws: { error in
            (error as? AttendeeFile.Problems)?.list.first?.hasPrefix("(file): not valid JSON") == true
        }
    }
}
