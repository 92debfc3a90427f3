import ByteEncoding

/// Many rows bound as ONE text parameter: a JSON array of flat objects, which the statement unpacks
/// with `json_to_recordset` (PostgreSQL) or `json_each` (SQLite). A batch of any size is then one
/// statement with one parameter: one round trip, and one prepared statement whatever the count.
struct JSONRecords: Sendable {
    private(set) var count = 0
    /// The JSON text so far, as UTF-8 (built byte by byte: a batch of pushes writes thousands of
    /// strings, and escaping scalar by scalar into a `String` cost more than the statement).
    private var bytes: [UInt8] = [UInt8(ascii: "[")]

    /// Appends one object; keys are fixed by the program, values are escaped here.
    mutating func append(_ fields: KeyValuePairs<String, SQLValue>) {
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        count += 1
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in fields {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            JSONString.append(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            switch value {
            case .null: bytes += "null".utf8
            case .integer(let number): bytes += String(number).utf8
            case .real(let number): bytes += (number.isFinite ? String(number) : "null").utf8
            case .text(let string): JSONString.append(string, to: &bytes)
            case .bytes(let data):
                // Hex digits; the statement decodes them where it needs bytes.
                bytes.append(UInt8(ascii: "\""))
                for byte in data { Hex.append(byte, to: &bytes) }
                bytes.append(UInt8(ascii: "\""))
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// The JSON text, as a bind parameter.
    var parameter: SQLValue { .text(String(decoding: bytes + [UInt8(ascii: "]")], as: UTF8.self)) }
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

    /// `<column> IN <texts>` for a list bound as one parameter, a JSON array.
    func textColumn(_ column: String, in texts: [String]) -> SQLQuery {
        var list: [UInt8] = [UInt8(ascii: "[")]
        for (index, text) in texts.enumerated() {
            if index > 0 { list.append(UInt8(ascii: ",")) }
            JSONString.append(text, to: &list)
        }
        list.append(UInt8(ascii: "]"))
        let json = String(decoding: list, as: UTF8.self)
        if dialect == .postgres {
            return "\(unsafeRaw: column) IN (SELECT json_array_elements_text(CAST(\(json) AS json)))"
        }
        return "\(unsafeRaw: column) IN (SELECT value FROM json_each(\(json)))"
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
