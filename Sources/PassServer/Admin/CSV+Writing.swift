extension CSV {
    /// One record: the fields, each protected (`formulaSafe`) and quoted when needed, separated by
    /// commas and ended by CRLF (RFC 4180).
    static func record(_ fields: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(comma) }
            append(formulaSafe(field), to: &bytes)
        }
        bytes += [carriageReturn, lineFeed]
        return bytes
    }

    /// Appends one field: as is, or quoted with `"` doubled when it holds a comma, a quote, CR or
    /// LF, or starts or ends with a space (which some readers trim).
    private static func append(_ field: String, to bytes: inout [UInt8]) {
        let utf8 = field.utf8
        let needsQuotes = utf8.contains { $0 == comma || $0 == quote || $0 == carriageReturn || $0 == lineFeed }
            || utf8.first == UInt8(ascii: " ") || utf8.last == UInt8(ascii: " ")
        guard needsQuotes else {
            bytes += utf8
            return
        }
        bytes.append(quote)
        for byte in utf8 {
            if byte == quote { bytes.append(byte) }
            bytes.append(byte)
        }
        bytes.append(quote)
    }
}
