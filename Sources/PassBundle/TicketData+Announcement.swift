extension TicketData {
    /// The key of the announcement's back field (a template's own field of that key gives way).
    public static let announcementKey = "announcement"

    /// The label a template's passes give the announcement: its `pass.strings` key `ANNOUNCEMENT`
    /// when every localization of the template has one, the English word otherwise (Wallet would
    /// show a missing key as it is).
    static func announcementLabel(localizedStrings: [String]) -> String {
        let key = "\"ANNOUNCEMENT\""
        return !localizedStrings.isEmpty && localizedStrings.allSatisfy { $0.contains(key) } ? "ANNOUNCEMENT" : "Announcement"
    }

    /// Puts the announcement first among the back fields of the pass's style, after rendering (so
    /// braces in it are never read as placeholders): its text as the value and, when it notifies,
    /// `changeMessage` `%@`, so the lock screen shows the text itself. Without an announcement the
    /// pass is left as rendered: a withdrawn announcement's field is simply gone, which Wallet
    /// announces to nobody.
    func applyAnnouncement(to pass: inout JSONValue, label: String) {
        guard let announcement, case .object(var root) = pass else { return }
        for style in ["eventTicket", "boardingPass", "coupon", "generic", "storeCard"] {
            guard case .object(var structure)? = root[style] else { continue }
            var fields: [JSONValue] = if case .array(let existing)? = structure["backFields"] { existing } else { [] }
            fields.removeAll { field in
                if case .object(let members) = field, members["key"] == .string(Self.announcementKey) { true } else { false }
            }
            var field: [String: JSONValue] = [
                "key": .string(Self.announcementKey), "label": .string(label), "value": .string(announcement.message),
            ]
            if announcement.notify { field["changeMessage"] = .string("%@") }
            fields.insert(.object(field), at: 0)
            structure["backFields"] = .array(fields)
            root[style] = .object(structure)
            pass = .object(root)
            return
        }
    }
}
