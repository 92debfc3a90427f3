extension CSV {
    /// The UTF-8 byte order mark an export starts with: spreadsheets that otherwise guess a
    /// legacy encoding (Excel) then read Japanese or accented names correctly. Readers of this
    /// format skip it.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// One record: the fields, each protected (`formulaSafe`) and quoted when needed, separated by
    /// commas and ended by CRLF (RFC 4180).
    static func record(_ fields: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(formulaSafe(field), to: &bytes)
        }
        bytes += [13, 10]
        return bytes
    }

    /// Appends one field: as is, or quoted with `"` doubled when it holds a comma, a quote, CR or
    /// LF, or starts or ends with a space (which some readers trim).
    private static func append(_ field: String, to bytes: inout [UInt8]) {
        let utf8 = field.utf8
        let needsQuotes = utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 13 || $0 == 10 }
            || utf8.first == UInt8(ascii: " ") || utf8.last == UInt8(ascii: " ")
        guard needsQuotes else {
            bytes += utf8
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in utf8 {
            if byte == UInt8(ascii: "\"") { bytes.append(byte) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
