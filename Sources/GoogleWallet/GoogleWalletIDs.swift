/// The ids of our classes and objects at Google: `<issuer id>.<suffix>`, where the suffix may hold
/// only letters, digits, `.`, `_` and `-`. A class is an event (`e.` and its id), an object a
/// ticket (`t.` and its serial number). Serial numbers may also hold `:`, and both may hold `_`, so
/// the suffix escapes those two as `_3A` and `_5F`: the mapping is one to one and reversible, and
/// a callback's ids lead back to the event and the ticket they name.
public enum GoogleWalletIDs {
    public static func classID(issuer: String, event: String) -> String {
        "\(issuer).e.\(escape(event))"
    }

    public static func objectID(issuer: String, serial: String) -> String {
        "\(issuer).t.\(escape(serial))"
    }

    /// The event id a class id of this issuer names; nil for any other id.
    public static func event(fromClassID id: String, issuer: String) -> String? {
        unescape(id, prefix: "\(issuer).e.")
    }

    /// The serial number an object id of this issuer names; nil for any other id.
    public static func serial(fromObjectID id: String, issuer: String) -> String? {
        unescape(id, prefix: "\(issuer).t.")
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "_": out += "_5F"
            case ":": out += "_3A"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    private static func unescape(_ id: String, prefix: String) -> String? {
        guard id.hasPrefix(prefix) else { return nil }
        var rest = Substring(id.dropFirst(prefix.count))
        var out = ""
        while let first = rest.first {
            if first == "_" {
                switch rest.prefix(3) {
                case "_5F": out += "_"
                case "_3A": out += ":"
                default: return nil
                }
                rest = rest.dropFirst(3)
            } else {
                guard first.isASCII, first.isLetter || first.isNumber || first == "." || first == "-" else { return nil }
                out.append(first)
                rest = rest.dropFirst()
            }
        }
        return out.isEmpty ? nil : out
    }
}
