import Storage

/// The `nextCursor` of the events list: `<startsAt in ms>.<id>` of the last event shown. Clients
/// pass it back as they got it; any text of that shape (what openapi.yaml's pattern allows) is a
/// position in the list, so no cursor can be valid in shape yet refused.
enum EventCursor {
    static func encode(_ position: EventListPosition) -> String {
        "\(position.startsAtMillis).\(position.id)"
    }

    static func decode(_ cursor: String) -> EventListPosition? {
        guard let dot = cursor.firstIndex(of: ".") else { return nil }
        let millis = cursor[..<dot]
        let id = String(cursor[cursor.index(after: dot)...])
        guard (1...15).contains(millis.utf8.count), millis.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int64(millis),
            AdminIdentifiers.isPlausible(id)
        else { return nil }
        return EventListPosition(startsAtMillis: value, id: id)
    }
}
