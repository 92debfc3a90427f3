extension CSV {
    /// Characters that make a spreadsheet read a cell as a formula when they start it (`=`, `+`,
    /// `-`, `@`) or that some spreadsheets skip before looking (tab, CR). An attendee named
    /// `=HYPERLINK(…)` must stay text in an organizer's spreadsheet.
    static let formulaStarts: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]

    /// `value` as written to a cell: prefixed with one `'` when, after any `'` it already starts
    /// with, it starts with a formula character. Spreadsheets show such a cell as text.
    ///
    /// The rule is reversible (`removingFormulaGuard`): a value that starts with `'` followed by a
    /// formula character gets a second `'`, so reading strips exactly the one that writing added.
    static func formulaSafe(_ value: String) -> String {
        guard let first = value.first(where: { $0 != "'" }), formulaStarts.contains(first) else { return value }
        return "'" + value
    }

    /// The inverse of `formulaSafe`, for reading a cell back: removes one leading `'` when the
    /// rest, after any further `'`, starts with a formula character; other cells are kept as is.
    static func removingFormulaGuard(_ cell: String) -> String {
        guard cell.first == "'", let first = cell.first(where: { $0 != "'" }), formulaStarts.contains(first) else { return cell }
        return String(cell.dropFirst())
    }
}
