import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

/// An order's one email end to end, through a real SMTP server: one message for the order and
/// none per ticket, to the buyer, listing each ticket with its link and linking the order's page;
/// every ticket reports the order's email as its own; uploads with orders, resends, Japanese.
@Suite("Orders: one email per order", .offCooperativePool, .timeLimit(.minutes(6)))
struct OrderEmailTests {
    static let orderLinkPattern = #"https://passes\.example\.test/orders/[A-Za-z0-9_-]+"#

    static func matches(_ pattern: String, in text: String) -> [String] {
        let regex = try? NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return regex?.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } } ?? []
    }

    /// The order as the admin API shows it.
    static func order(_ fixture: MailFixture, _ id: String) throws -> [String: Any]? {
        try fixture.app.admin("GET", "/admin/v1/orders/\(id)").jsonObject
    }

    @Test("a 4-ticket order gets one email, not four: to the buyer, listing each ticket, linking the order's page", arguments: Backend.allCases)
    func oneEmail(_ backend: Backend) async throws {
        let fixture = try MailFixture.start(backend)
        defer { fixture.stop() }
        let event = try fixture.createEvent()
        // The attendees have addresses of their own: they still get no email of the order's tickets.
        let order = try OrderSupport.createOrder(fixture.app, event: event, count: 4, notify: true, attendeeEmails: true)
        let id = try #require(order["orderId"] as? String)
        let orderURL = try #require(order["orderURL"] as? String)
        let tickets = try #require(order["tickets"] as? [[String: Any]])
        #expect(tickets.count == 4 && tickets.allSatisfy { $0["orderId"] as? String == id })

        let messages = try await fixture.smtp.waitForMessages(1, timeout: 60)
        let message = try #require(messages.first)
        #expect(message.rcptTos == ["buyer@example.com"])
        let parsed = try #require(message.parsed)
        #expect(parsed.defects.isEmpty)
        #expect(parsed.decoded["To"] == "Bea Buyer <buyer@example.com>")
        #expect(parsed.decoded["Subject"] == "Your tickets for Swift Night")
        #expect(parsed.parts.map(\.type) == ["text/plain", "text/html"])
        let text = try #require(parsed.part("text/plain"))
        let html = try #require(parsed.part("text/html"))
        #expect(text.contains("Hello Bea Buyer,") && text.contains("Tokyo Hall"))
        // The order's page, in both parts, and it opens the order.
        #expect(Self.matches(Self.orderLinkPattern, in: text) == [orderURL])
        #expect(Self.matches(Self.orderLinkPattern, in: html) == [orderURL])
        let page = try fixture.app.request("GET", try OrderSupport.target(orderURL), headers: [OrderBundleTests.browser])
        #expect(page.status == 200)
        // Each ticket, with its seat and its own link.
        for (index, ticket) in tickets.enumerated() {
            let link = try #require(ticket["downloadURL"] as? String)
            #expect(text.contains("- Guest \(index + 1), seat R\(index + 1)") && text.contains(link))
            #expect(html.contains(">Guest \(index + 1)<") && html.contains(link))
            #expect(page.text.contains("Guest \(index + 1)"))
        }

        try await eventually("the order's email recorded as sent", timeout: 60) {
            (try Self.order(fixture, id)?["emailStatus"] as? [String: Any])?["state"] as? String == "sent"
        }
        let status = try #require(try Self.order(fixture, id)?["emailStatus"] as? [String: Any])
        #expect(status["sentCount"] as? Int == 1 && (status["reply"] as? String)?.hasPrefix("250") == true)
        for serial in OrderSupport.serials(order) {
            let ticket = try #require(try fixture.emailStatus(serial), "ticket \(serial) reports the order's email")
            #expect(ticket["state"] as? String == "sent" && ticket["sentCount"] as? Int == 1)
        }
        // Still one message a while later, and the event counts its four tickets' email as sent.
        await AdminSupport.pause(1.5)
        #expect(try fixture.smtp.messages().count == 1)
        #expect(try fixture.metric(#"passserver_emails_total{outcome="sent"}"#) == 1)
        let counts = try fixture.app.admin("GET", "/admin/v1/events/\(event)").jsonObject?["emailStatus"] as? [String: Any]
        #expect(counts?["sent"] as? Int == 4)

        // A ticket's own send, or the order's, sends the order's one email again.
        #expect(try fixture.app.admin("POST", "/admin/v1/tickets/\(OrderSupport.serials(order)[2])/email").status == 202)
        let again = try await fixture.smtp.waitForMessages(2, timeout: 60)
        #expect(again.count == 2 && again.last?.rcptTos == ["buyer@example.com"])
        // A send asked for while the order's email is queued (or in flight, until its answer is
        // recorded) adds nothing: wait for the second to be recorded before asking again.
        try await eventually("the order sent twice", timeout: 60) {
            (try Self.order(fixture, id)?["emailStatus"] as? [String: Any])?["sentCount"] as? Int == 2
        }
        #expect(try fixture.app.admin("POST", "/admin/v1/orders/\(id)/email").status == 202)
        #expect(try await fixture.smtp.waitForMessages(3, timeout: 60).count == 3)
        try await eventually("the order sent three times", timeout: 60) {
            (try Self.order(fixture, id)?["emailStatus"] as? [String: Any])?["sentCount"] as? Int == 3
        }
    }

    @Test("an upload of two orders and a ticket of its own sends three emails, in the event's language; an event send adds none", arguments: Backend.allCases)
    func uploadAndEventSend(_ backend: Backend) async throws {
        let fixture = try MailFixture.start(backend)
        defer { fixture.stop() }
        let event = try fixture.createEvent(#","language":"ja""#)
        let csv = """
            attendeeName,attendeeEmail,seat,orderId,buyerEmail,buyerName\r
            山田 太郎,taro@example.com,A1,ORD-1,hanako@example.com,山田 花子\r
            山田 次郎,,A2,ORD-1,,\r
            Ada Lovelace,ada@example.com,B1,ORD-2,charles@example.com,\r
            Grace Hopper,grace@example.com,B2,ORD-2,,\r
            Alan Turing,alan@example.com,C1,,,\r
            """
        let response = try fixture.app.request("POST", "/admin/v1/events/\(event)/tickets:batch?notify=true", headers: [
            ("Authorization", "Bearer \(fixture.app.adminToken)"), ("Content-Type", "text/csv; charset=utf-8"),
        ], body: Array(csv.utf8))
        try #require(response.status == 200, "\(response.text)")
        #expect(response.jsonObject?["emailsQueued"] as? Int == 5)
        let messages = try await fixture.smtp.waitForMessages(3, timeout: 60)
        #expect(Set(messages.compactMap { $0.rcptTos?.first }) == ["hanako@example.com", "charles@example.com", "alan@example.com"])
        let hanako = try #require(messages.first { $0.rcptTos == ["hanako@example.com"] }?.parsed)
        #expect(hanako.decoded["Subject"] == "【Swift Night】チケット2枚のご案内")
        #expect(hanako.decoded["To"] == "山田 花子 <hanako@example.com>")
        let text = try #require(hanako.part("text/plain"))
        #expect(text.contains("山田 花子 様") && text.contains("・山田 太郎(座席: A1)") && text.contains("・山田 次郎(座席: A2)") && !text.contains("Ada"))
        let charles = try #require(messages.first { $0.rcptTos == ["charles@example.com"] }?.parsed)
        #expect(charles.decoded["To"] == "charles@example.com", "no buyer's name: the address alone")
        #expect(charles.part("text/plain")?.hasPrefix("Swift Night のチケット2枚をお届けします。") == true)

        // Every ticket's email is sent, so an event send queues nothing; a resend queues each order once.
        for ticket in try #require(response.jsonObject?["tickets"] as? [[String: Any]]) {
            let serial = try #require(ticket["serialNumber"] as? String)
            _ = try await fixture.waitForEmail(serial, state: "sent")
        }
        let send = try fixture.app.admin("POST", "/admin/v1/events/\(event)/email")
        let job = try #require(send.jsonObject?["id"] as? String)
        try await eventually("the event send done", timeout: 60) { try fixture.app.admin("GET", "/admin/v1/jobs/\(job)").jsonObject?["state"] as? String == "done" }
        #expect(try fixture.app.admin("GET", "/admin/v1/jobs/\(job)").jsonObject?["done"] as? Int == 0)
        let resend = try fixture.app.admin("POST", "/admin/v1/events/\(event)/email", json: #"{"resend":true}"#)
        let resendJob = try #require(resend.jsonObject?["id"] as? String)
        try await eventually("the resend done", timeout: 60) { try fixture.app.admin("GET", "/admin/v1/jobs/\(resendJob)").jsonObject?["state"] as? String == "done" }
        #expect(try fixture.app.admin("GET", "/admin/v1/jobs/\(resendJob)").jsonObject?["done"] as? Int == 5, "counted per ticket")
        let resent = try await fixture.smtp.waitForMessages(6, timeout: 60)
        await AdminSupport.pause(1.5)
        #expect(try resent.count == 6 && fixture.smtp.messages().count == 6, "three emails again: one per order, one for the lone ticket")
    }
}
