import FakeAPNs
import Foundation
import Synchronization
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Helpers of the announcement and scheduled-change tests.
enum SchedulingSupport {
    /// What Wallet puts on the lock screen when a pass is replaced by a newer one: for each field
    /// of the new pass that has a `changeMessage` and whose value differs from the old pass's
    /// field of the same key (or that the old pass did not have), the message with `%@` replaced
    /// by the new value. A field that went away, or one without a `changeMessage`, alerts nobody.
    static func alerts(from old: [String: Any], to new: [String: Any]) -> [String] {
        func fields(_ pass: [String: Any]) -> [String: [String: Any]] {
            var found: [String: [String: Any]] = [:]
            for style in ["eventTicket", "boardingPass", "coupon", "generic", "storeCard"] {
                guard let structure = pass[style] as? [String: Any] else { continue }
                for group in ["headerFields", "primaryFields", "secondaryFields", "auxiliaryFields", "backFields"] {
                    for field in (structure[group] as? [[String: Any]]) ?? [] {
                        if let key = field["key"] as? String { found[key] = field }
                    }
                }
            }
            return found
        }
        let before = fields(old)
        return fields(new).sorted { $0.key < $1.key }.compactMap { key, field in
            guard let message = field["changeMessage"] as? String else { return nil }
            let value = "\(field["value"] ?? "")"
            if let previous = before[key], "\(previous["value"] ?? "")" == value { return nil }
            return message.replacingOccurrences(of: "%@", with: value)
        }
    }

    /// The back fields of an event ticket's pass.json.
    static func backFields(_ pass: [String: Any]) -> [[String: Any]] {
        ((pass["eventTicket"] as? [String: Any])?["backFields"] as? [[String: Any]]) ?? []
    }

    /// Sends an announcement through the admin API (201 expected) and returns the answer.
    static func announce(
        _ app: TestApp, event: String, message: String, notify: Bool = true, sendAt: Date? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> TestResponse {
        var body: [String: Any] = ["message": message, "notify": notify]
        if let sendAt { body["sendAt"] = ISODate.format(sendAt) }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let response = try app.admin("POST", "/admin/v1/events/\(event)/announcements", json: json)
        try #require(response.status == 201, "announcement refused: \(response.status) \(response.text)", sourceLocation: sourceLocation)
        return response
    }

    /// Polls `condition` on the calling thread every 50 ms until it holds; throws after `timeout` s.
    static func wait(_ what: String, timeout: TimeInterval = 60, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else { throw AdminSupport.Failure(description: "timed out waiting: \(what)") }
            usleep(50_000)
        }
    }

    /// Whether no push waits in the outbox.
    static func outboxDrained(_ store: any Store) throws -> Bool {
        let outbox = try store.withSession(.read) { try $0.outbox.outboxCounts(now: Date()) }
        return outbox.pending == 0 && outbox.inFlight == 0
    }

    static func outboxDrained(_ app: TestApp) throws -> Bool {
        try outboxDrained(app.store)
    }

    /// Waits until the job is done and no push of the app waits in the outbox.
    static func settled(_ app: TestApp, job: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await eventually("job \(job) done and the outbox drained", timeout: 60, sourceLocation: sourceLocation) {
            try app.store.withSession(.read) { try $0.jobs.job(id: job) }?.state == .done && outboxDrained(app)
        }
    }

    /// Pushes the fake received per token.
    static func pushes(_ fake: FakeAPNs) -> [String: Int] {
        Dictionary(grouping: fake.pushes.filter { $0.status == 200 }, by: \.token).mapValues(\.count)
    }
}

/// A value shared between a test and a thread it started.
final class SendableBox<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    func get() -> Value { value.withLock { $0 } }

    func set(_ newValue: Value) { value.withLock { $0 = newValue } }
}
