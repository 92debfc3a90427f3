/// A strict RFC 4180 reader for tests, written independently of the server's CSV code: records
/// end with CRLF, a quoted field is quoted as a whole with `""` for a quote, and anything else
/// (a bare quote, a bare CR or LF, text after a closing quote, a missing final CRLF) is an error.
enum StrictCSV {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func records(_ bytes: [UInt8]) throws -> [[String]] {
        var records: [[String]] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var index = 0
        func byte(_ offset: Int = 0) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
        func endField() throws {
            guard let text = String(validating: field, as: UTF8.self) else { throw Failure(description: "field is not UTF-8") }
            fields.append(text)
            field = []
        }
        while index < bytes.count {
            if byte() == UInt8(ascii: "\"") {
                index += 1
                while true {
                    guard let current = byte() else { throw Failure(description: "unterminated quoted field") }
                    if current == UInt8(ascii: "\"") {
                        if byte(1) == UInt8(ascii: "\"") {
                            field.append(current)
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    field.append(current)
                    index += 1
                }
            } else {
                while let current = byte(), current != UInt8(ascii: ","), current != 13 {
                    guard current != UInt8(ascii: "\""), current != 10 else {
                        throw Failure(description: "bare quote or line feed in an unquoted field at byte \(index)")
                    }
                    field.append(current)
                    index += 1
                }
            }
            try endField()
            switch byte() {
            case UInt8(ascii: ","):
                index += 1
                if index == bytes.count { throw Failure(description: "a record ends with a comma and no CRLF") }
            case 13:
                guard byte(1) == 10 else { throw Failure(description: "CR without LF") }
                index += 2
                records.append(fields)
                fields = []
            default:
                throw Failure(description: "text after a field at byte \(index)")
            }
        }
        guard fields.isEmpty, field.isEmpty else { throw Failure(description: "the last record has no CRLF") }
        return records
    }
}
