import CPostgres

// Reading results: every value arrives in libpq's text format and is typed by its column's OID.

extension PGConnection {
    func rows(of result: OpaquePointer) -> [SQLRow] {
        let rowCount = PQntuples(result)
        let fieldCount = PQnfields(result)
        guard rowCount > 0 else { return [] }
        let columns = (0..<fieldCount).map { String(cString: PQfname(result, $0)) }
        let types = (0..<fieldCount).map { PQftype(result, $0) }
        var rows: [SQLRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(fieldCount))
            for field in 0..<fieldCount {
                if PQgetisnull(result, row, field) == 1 {
                    values.append(.null)
                    continue
                }
                let text = String(cString: PQgetvalue(result, row, field))
                values.append(Self.decode(text, type: types[Int(field)]))
            }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    /// Decodes a text-format result value by its type OID.
    static func decode(_ text: String, type: Oid) -> SQLValue {
        switch type {
        case 20, 21, 23, 26: return Int64(text).map(SQLValue.integer) ?? .text(text)
        case 16: return .integer(text == "t" ? 1 : 0)
        case 700, 701: return Double(text).map(SQLValue.real) ?? .text(text)
        case 17: return .bytes(decodeHex(text))
        default: return .text(text)
        }
    }

    /// Decodes `bytea` hex output (`\x0aff…`).
    static func decodeHex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8.dropFirst(2))
        bytes.reserveCapacity(utf8.count / 2)
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: c &- UInt8(ascii: "A") &+ 10
            }
        }
        var index = 0
        while index + 1 < utf8.count {
            bytes.append(nibble(utf8[index]) << 4 | nibble(utf8[index + 1]))
            index += 2
        }
        return bytes
    }
}
