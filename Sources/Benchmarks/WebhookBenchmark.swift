// The two halves of bench/webhooks.sh beside the release server: `webhook-seed` records the
// webhook events of a large import through the store (as the admin API's import does), and
// `webhook-receiver` is the cheap receiver they drain to.

import Foundation
import PassIdentifiers
public import PassServer
import PassServerTesting
public import Storage
import SystemSupport

/// What bench/webhooks.sh needs besides the server.
public enum WebhookBenchmark {
    /// The seed's outcome: the endpoint's signing secret and the import's pace without and with
    /// an endpoint subscribed to `ticket.issued`.
    public struct Seed: Sendable {
        public var secret: String
        /// Seconds per import of `chunk` tickets: with no endpoint, and with one (median of the chunks).
        public var withoutWebhooks: Double
        public var withWebhooks: Double
        public var chunk: Int
        public var deliveries: Int
    }

    /// In an empty, migrated database: imports `baseline` tickets into one event with no endpoint,
    /// registers an endpoint at `url` for `ticket.issued`, then imports `tickets` tickets into
    /// another event in chunks of `chunk` (each chunk one `importPasses` transaction, which records
    /// its webhook events and deliveries). Times each import.
    public static func seed(store: any Store, vault: TokenVault, url: String, tickets: Int, baseline: Int, chunk: Int) throws -> Seed {
        try store.migrate()
        let passType = PassTypeIdentifier(trusted: "pass.dev.passserver.event")
        let now = Date()
        func event(_ name: String) throws -> String {
            try store.withSession(.write) {
                try $0.events.createEvent(NewEvent(name: name, venue: "Hall A", startsAt: now.addingTimeInterval(86_400 * 30), timeZone: "Asia/Tokyo", template: "event-ticket"), now: now)
            }.id
        }
        func importTimes(event: String, count: Int, prefix: String) throws -> [Double] {
            var times: [Double] = []
            for start in stride(from: 0, to: count, by: chunk) {
                let passes = (start..<min(start + chunk, count)).map { index in
                    NewPass(
                        passTypeIdentifier: passType, serialNumber: SerialNumber(trusted: "\(prefix)\(index)"),
                        authenticationTokenHash: Array("a-\(prefix)\(index)".utf8), downloadTokenHash: Array("d-\(prefix)\(index)".utf8),
                        attendeeName: "Guest \(index)", attendeeEmail: "guest\(index)@example.com", seat: "R\(index / 100)-\(index % 100)",
                        externalID: "\(prefix)\(index)"
                    )
                }
                let began = ContinuousClock.now
                _ = try store.withSession(.write) { try $0.passes.importPasses(passes, eventID: event, now: Date()) }
                let elapsed = ContinuousClock.now - began
                times.append(elapsed.timeInterval)
            }
            return times
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let without = try importTimes(event: try event("Quiet Night"), count: baseline, prefix: "Q")
        let nonce = "bench-\(UUID().uuidString)"
        let endpoint = try store.withSession(.write) {
            try $0.webhooks.createWebhookEndpoint(NewWebhookEndpoint(url: url, description: "bench", eventTypes: [.ticketIssued], secretNonce: nonce), now: now)
        }
        let with = try importTimes(event: try event("Hook Night"), count: tickets, prefix: "H")
        let deliveries = try store.withSession(.read) { try $0.webhooks.webhookCounts() }.pending
        return Seed(
            secret: try vault.webhookSecret(endpointID: endpoint.id, nonce: nonce), withoutWebhooks: median(without), withWebhooks: median(with),
            chunk: chunk, deliveries: deliveries
        )
    }

    /// Serves a `CountingWebhookReceiver` and, every few milliseconds until stopped, writes its
    /// port (`port`) and its tally (`tally`: deliveries, distinct ids, the first and the last
    /// arrival as seconds since 1970, signatures checked, bad ones) into `directory`.
    public static func receive(directory: String, port: Int, threads: Int, secret: String?) throws -> Never {
        let receiver = try CountingWebhookReceiver(port: port, threads: threads, secret: secret)
        try write("\(receiver.port)\n", to: directory + "/port")
        func seconds(_ date: Date?) -> String { date.map { String(format: "%.6f", $0.timeIntervalSince1970) } ?? "0" }
        while true {
            let tally = receiver.tally
            try write(
                "\(tally.deliveries) \(tally.distinctIDs) \(seconds(tally.first)) \(seconds(tally.last)) \(tally.checkedSignatures) \(tally.badSignatures)\n",
                to: directory + "/tally"
            )
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// Writes through a temporary file and a rename, so a reader never sees half a line.
    private static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
