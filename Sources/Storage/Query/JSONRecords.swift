/// Many rows bound as ONE text parameter: a JSON array of flat objects, which the statement unpacks
/// with `json_to_recordset` (PostgreSQL) or `json_each` (SQLite). A batch of any size is then one
/// statement with one parameter: one round trip, and one prepared statement whatever the count.
struct JSONRecords: Sendable {
    private(set) var count = 0
    private var text = "["

    /// Appends one object; keys are fixed by the program, values are escaped here.
    mutating func append(_ fields: KeyValuePairs<String, SQLValue>) {
        if count > 0 { text += "," }
        count += 1
        text += "{"
        var first = true
        for (key, value) in fields {
            if !first { text += "," }
            first = false
            text += "\"\(key)\":"
            switch value {
            case .null: text += "null"
            case .integer(let number): text += String(number)
            case .real(let number): text += number.isFinite ? String(number) : "null"
            case .text(let string): Self.appendQuoted(string, to: &text)
            case .bytes(let bytes):
                // Hex digits; the statement decodes them where it needs bytes.
                let digits = Array("0123456789abcdef".utf8)
                var hex = [UInt8]()
                hex.reserveCapacity(bytes.count * 2)
                for byte in bytes { hex += [digits[Int(byte >> 4)], digits[Int(byte & 0xf)]] }
                text += "\"" + String(decoding: hex, as: UTF8.self) + "\""
            }
        }
        text += "}"
    }

    /// The JSON text, as a bind parameter.
    var parameter: SQLValue { .text(text + "]") }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    private static func appendQuoted(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

extension StoreSession {
    /// `<column> IN <ids>` for a list bound as one parameter: a `bigint[]` on PostgreSQL, a JSON
    /// array on SQLite.
    func column(_ column: String, in ids: [Int64]) -> SQLQuery {
        let list = ids.map(String.init).joined(separator: ",")
        if dialect == .postgres {
            return "\(unsafeRaw: column) = ANY(CAST(\("{" + list + "}") AS bigint[]))"
        }
        return "\(unsafeRaw: column) IN (SELECT value FROM json_each(\("[" + list + "]")))"
    }

    /// The rows of `records` as a table named `alias` with `columns` (name and PostgreSQL type), for
    /// `FROM` or `INSERT … SELECT`.
    func recordSet(_ records: JSONRecords, alias: String, columns: [(name: String, type: String)]) -> SQLQuery {
        if dialect == .postgres {
            let declared = columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ")
            return "json_to_recordset(CAST(\(records.parameter) AS json)) AS \(unsafeRaw: alias)(\(unsafeRaw: declared))"
        }
        let extracted = columns.map { "json_extract(value, '$.\($0.name)') AS \($0.name)" }.joined(separator: ", ")
        return "(SELECT \(unsafeRaw: extracted) FROM json_each(\(records.parameter))) AS \(unsafeRaw: alias)"
    }
}
