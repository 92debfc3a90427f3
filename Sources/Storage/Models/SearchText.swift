/// The text a case-insensitive substring search runs on (`search_text` columns).
///
/// The application lowercases (Unicode's full lowercase mapping, the same on every platform and
/// database locale) and joins the searchable fields with line feeds; a search term, which may not
/// contain control characters, is lowercased the same way and matched with `LIKE '%term%'`, so it
/// can never match across two fields.
public enum SearchText {
    /// The stored form of `fields` (nil ones count as empty).
    public static func key(_ fields: [String?]) -> String {
        fields.map { ($0 ?? "").lowercased() }.joined(separator: "\n")
    }

    /// The stored form for a pass: attendee name, email, serial number, external id.
    static func pass(attendeeName: String, attendeeEmail: String?, serialNumber: String, externalID: String?) -> String {
        key([attendeeName, attendeeEmail, serialNumber, externalID])
    }

    /// The stored form for an event: name and venue.
    static func event(name: String, venue: String) -> String {
        key([name, venue])
    }

    /// A `LIKE` pattern (escape character `\`) matching texts that contain `term`, case-insensitively.
    public static func containsPattern(_ term: String) -> String {
        var pattern = "%"
        for character in term.lowercased() {
            if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }
}
