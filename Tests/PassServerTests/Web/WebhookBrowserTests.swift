import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Webhooks from the dashboard in real headless Chromium (Tests/Browser/dashboard_webhooks.py):
/// register an endpoint, see its secret once, see the delivery log with each delivery's HTTP
/// status, redeliver one; the receiver gets the redelivery with the same id and body, signed with
/// the secret the page showed.
@Suite("Webhooks in a browser", .offCooperativePool, .timeLimit(.minutes(6)), .tags(.endToEnd))
struct WebhookBrowserTests {
    @Test("register, the secret once, the delivery log with statuses, redeliver")
    func webhooks() async throws {
        let app = try await TestApp.startOffPool(.sqlite) { configuration in
            ScannerBrowserTests.browsable(&configuration)
            WebhookTest.configure(&configuration)
            // The refused delivery's retry comes minutes later: the log keeps showing its 500.
            configuration.webhooks.retryBaseDelay = 300
            configuration.webhooks.retryMaxDelay = 600
        }
        defer { app.stop() }
        let receiver = try FakeWebhookReceiver()
        defer { receiver.shutdown() }
        let event = try await offPool { try app.createEvent(name: "Hook Night") }
        receiver.script("crm", [.status(200)])
        receiver.always("crm", .status(500))
        try await BrowserScript.expectPasses(
            "dashboard_webhooks.py", serverURL: app.baseURL, name: "dashboard-webhooks",
            environment: ["ADMIN_TOKEN": app.adminToken, "RECEIVER_URL": receiver.url("crm")], timeLimit: .seconds(240),
            requests: { request in
                guard request == "issue" else { throw AdminSupport.Failure(description: "unknown request \(request)") }
                try await offPool {
                    _ = try app.issueTicket(event: event, attendee: "Ada Lovelace")
                }
                try await WebhookTest.waitFor(receiver, "crm", "the first ticket delivered") { $0.count == 1 }
                // The first delivery is answered 200; the redelivery (later) too; this one 500.
                receiver.script("crm", [.status(500), .status(200)])
                try await offPool { _ = try app.issueTicket(event: event, attendee: "Grace Hopper") }
            },
            keepingOutput: true
        )
        let secret = try String(contentsOfFile: BrowserScript.outputDirectory(for: "dashboard-webhooks") + "/secret.txt", encoding: .utf8)
        let delivered = receiver.deliveries("crm").filter { $0.answer == 200 }
        let first = try #require(delivered.first)
        #expect(delivered.filter { $0.webhookID == first.webhookID }.count == 2, "the redelivery carried the first delivery's id")
        #expect(delivered.filter { $0.webhookID == first.webhookID }.allSatisfy { $0.body == first.body })
        #expect(receiver.deliveries("crm").allSatisfy { WebhookTest.verifies($0, secret: secret) }, "signed with the secret the page showed")
    }
}
