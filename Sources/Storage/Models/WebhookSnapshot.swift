
/// The ticket and event a webhook event keeps as they were: their columns as a JSON object,
/// written in SQL by the statement that made the change (`json_build_object`, `json_object`), and
/// read back into the same `StoredPass` and `Event` a query returns. Token hashes, served
/// revisions and the event's design are not kept (no webhook shows them). A column added to the
/// tables later is missing from the webhook events recorded before: it reads as NULL.
enum WebhookSnapshot {
    /// Columns a ticket's webhook does not keep.
    static let ticketLeftOut: Set<String> = ["authentication_token_hash", "download_token_hash", "served_revision", "served_at"]
    static let eventLeftOut: Set<String> = ["design"]

    static var ticketColumns: [String] { StoredPass.columnNames.filter { !ticketLeftOut.contains($0) } }
    static var eventColumns: [String] { EventOperations.eventColumnNames.filter { !eventLeftOut.contains($0) } }

    /// The JSON text of `columns` of the row `alias` (NULL when the row is missing, as in a left join).
    static func expression(_ alias: String, columns: [String], dialect: SQLDialect) -> SQLQuery {
        let pairs = columns.map { "'\($0)', \(alias).\($0)" }.joined(separator: ", ")
        let object = dialect.pick(postgres: "CAST(json_build_object(\(pairs)) AS TEXT)", sqlite: "json_object(\(pairs))")
        return SQLQuery(unsafeRaw: "CASE WHEN \(alias).id IS NULL THEN NULL ELSE \(object) END")
    }

    static func ticket(from json: String) throws -> StoredPass {
        let row = try Self.row(json, what: "ticket", columns: StoredPass.columnNames, filled: [
            "authentication_token_hash": .bytes([]), "download_token_hash": .bytes([]),
        ])
        return try StoredPass(row: row)
    }

    static func event(from json: String) throws -> Event {
        try Event(row: try Self.row(json, what: "event", columns: EventOperations.eventColumnNames, filled: [:]))
    }

    /// A flat JSON object of integers, strings and nulls as a row of `columns`: a column the object
    /// lacks is `filled`'s value, or NULL.
    private static func row(_ json: String, what: String, columns: [String], filled: [String: SQLValue]) throws -> SQLRow {
        var fields = try FlatJSON.object(json, what: what)
        let present = Set(fields.map(\.0))
        for column in columns where !present.contains(column) { fields.append((column, filled[column] ?? .null)) }
        return SQLRow(columns: fields.map(\.0), values: fields.map(\.1))
    }
}

/// A reader of the flat JSON objects the database writes for webhook events (`json_build_object`,
/// `json_object` of columns): strings, integers and nulls, one level. Written for that shape alone,
/// it costs a fraction of a general decoder, for every delivery sent.
enum FlatJSON {
    static func object(_ text: String, what: String) throws -> [(String, SQLValue)] {
        var reader = Reader(bytes: Array(text.utf8))
        guard let fields = reader.object() else {
            throw StorageError(.backend, "a webhook event's \(what) is not a flat JSON object")
        }
        return fields
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func object() -> [(String, SQLValue)]? {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var fields: [(String, SQLValue)] = []
            skipSpace()
            if take(UInt8(ascii: "}")) { return end() ? fields : nil }
            while true {
                skipSpace()
                guard let key = string() else { return nil }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                guard let value = value() else { return nil }
                fields.append((key, value))
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { return nil }
                return end() ? fields : nil
            }
        }

        private mutating func end() -> Bool {
            skipSpace()
            return index == bytes.count
        }

        private mutating func value() -> SQLValue? {
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return string().map { .text($0) }
            case UInt8(ascii: "n"):
                guard bytes[index...].starts(with: Array("null".utf8)) else { return nil }
                index += 4
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = index
                index += 1
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard let number = Int64(String(decoding: bytes[start..<index], as: UTF8.self)) else { return nil }
                return .integer(number)
            default:
                return nil
            }
        }

        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        // A surrogate pair: the high half, then `\u` and the low half.
                        if (0xD800...0xDBFF).contains(scalar) {
                            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let character = Unicode.Scalar(scalar) else { return nil }
                        out += Array(String(Character(character)).utf8)
                    default:
                        return nil
                    }
                default:
                    out.append(byte)
                }
            }
            return nil
        }

        private mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else { return nil }
            index += 4
            return value
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }
    }
}
