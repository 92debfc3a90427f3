import Foundation
import PassServerFixtures
import PassServerTesting
import Synchronization
import Testing

@testable import PassServer

/// What the device tests share: changing a ticket as an organizer does.
extension TestApp {
    /// Renames the attendee through the admin API, as an organizer would.
    func renameAttendee(_ serial: String, to name: String) throws {
        let response = try admin("PATCH", "/admin/v1/tickets/\(serial)", json: #"{"attendeeName":"\#(name)"}"#)
        guard response.status == 200 else { throw TestClient.Failure(description: "rename failed: \(response.status) \(response.text)") }
    }

    /// Cancels a ticket through the admin API.
    func cancelTicket(_ serial: String) throws {
        let response = try admin("POST", "/admin/v1/tickets/\(serial)/cancel", json: #"{"reason":"Refunded"}"#)
        guard response.status == 200 else { throw TestClient.Failure(description: "cancel failed: \(response.status) \(response.text)") }
    }

    /// An event with `count` tickets; returns their serials.
    func issueTickets(_ count: Int) throws -> [String] {
        let event = try createEvent()
        return try (0..<count).map { try issueTicket(event: event, attendee: "Attendee \($0)") }
    }
}

/// Values appended from many threads.
final class ConcurrentResults<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
}
