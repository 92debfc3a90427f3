import Foundation
import PassBundle
import Storage

/// An announcement saved to go out later: what the organizer wrote, checked.
struct AnnouncementPayload: Codable, Sendable, Equatable {
    var message: String
    var notify: Bool
}

/// An event edit saved to apply later: the typed draft the edit form and the API produce
/// (`EventEdit`, its fields checked when saved and again when applied) and, optionally, a whole
/// design to put in place. Dates as milliseconds since 1970; `endsAt: null` removes the end,
/// an absent `endsAt` leaves it.
struct EventEditPayload: Sendable, Equatable {
    var edit: EventEdit
    var design: PassDesign?

    /// Whether it changes nothing at all.
    var isEmpty: Bool { edit.isEmpty && design == nil }
}

extension EventEditPayload: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, venue, startsAt, endsAt, timeZone, language, template, design
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var edit = EventEdit()
        edit.name = try container.decodeIfPresent(String.self, forKey: .name)
        edit.venue = try container.decodeIfPresent(String.self, forKey: .venue)
        edit.startsAt = try container.decodeIfPresent(Int64.self, forKey: .startsAt).map(Self.date)
        if container.contains(.endsAt) {
            edit.endsAt = .some(try container.decodeNil(forKey: .endsAt) ? nil : Self.date(try container.decode(Int64.self, forKey: .endsAt)))
        }
        edit.timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
        edit.language = try container.decodeIfPresent(String.self, forKey: .language)
        edit.template = try container.decodeIfPresent(String.self, forKey: .template)
        self.edit = edit
        design = try container.decodeIfPresent(PassDesign.self, forKey: .design)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(edit.name, forKey: .name)
        try container.encodeIfPresent(edit.venue, forKey: .venue)
        try container.encodeIfPresent(edit.startsAt.map(Self.millis), forKey: .startsAt)
        if let ends = edit.endsAt {
            if let ends { try container.encode(Self.millis(ends), forKey: .endsAt) } else { try container.encodeNil(forKey: .endsAt) }
        }
        try container.encodeIfPresent(edit.timeZone, forKey: .timeZone)
        try container.encodeIfPresent(edit.language, forKey: .language)
        try container.encodeIfPresent(edit.template, forKey: .template)
        try container.encodeIfPresent(design, forKey: .design)
    }

    private static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }
    private static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// The JSON a scheduled action's payload is stored as, and read back.
enum ScheduledPayload {
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// The payload of `action`; a row that does not read is a fault of the server, not a refusal.
    static func decode<T: Decodable>(_ type: T.Type, of action: ScheduledAction) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(action.payload.utf8))
        } catch {
            throw PassServiceError("scheduled action \(action.id) has a payload that cannot be read")
        }
    }
}
