import Foundation
import Storage

/// The opaque `nextCursor` of the events list: base64url of `<startsAt ms>.<id>`.
enum EventCursor {
    static func encode(_ position: EventListPosition) -> String {
        Crypto.base64URL(Array("\(position.startsAtMillis).\(position.id)".utf8))
    }

    static func decode(_ cursor: String) -> EventListPosition? {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard cursor.utf8.count <= 200, let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
            let dot = text.firstIndex(of: "."), let millis = Int64(text[..<dot])
        else { return nil }
        let id = String(text[text.index(after: dot)...])
        guard AdminIdentifiers.isPlausible(id) else { return nil }
        return EventListPosition(startsAtMillis: millis, id: id)
    }
}
