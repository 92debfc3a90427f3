/// RFC 4180 comma-separated values, the one implementation the ticket import (`Parser`) and the
/// ticket export (`record`) share, with the formula guard both apply (`formulaSafe`,
/// `removingFormulaGuard`).
enum CSV {
    /// The UTF-8 byte order mark: an export starts with it, so spreadsheets that otherwise guess a
    /// legacy encoding (Excel) read Japanese or accented names correctly; the parser skips it at
    /// the start of a text (spreadsheets write files with and without one).
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    static let quote = UInt8(ascii: "\"")
    static let comma = UInt8(ascii: ",")
    static let carriageReturn = UInt8(ascii: "\r")
    static let lineFeed = UInt8(ascii: "\n")
}
