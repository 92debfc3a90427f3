extension CSV {
    /// Scalars that make a spreadsheet read a cell as a formula when they start it (`=`, `+`,
    /// `-`, `@`) or that some spreadsheets skip before looking (tab, CR). An attendee named
    /// `=HYPERLINK(…)` must stay text in an organizer's spreadsheet.
    ///
    /// The test is on the first Unicode scalar, not the first `Character`: `=` followed by a
    /// combining mark or a joiner is one `Character` that is not `=`, yet spreadsheets see the `=`
    /// (and CR LF is one `Character` that is not CR).
    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    /// Whether `value`, after any `'` it starts with, starts with a formula scalar.
    static func startsWithFormula(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first(where: { $0 != "'" }) else { return false }
        return formulaStarts.contains(first)
    }

    /// `value` as written to a cell: prefixed with one `'` when, after any `'` it already starts
    /// with, it starts with a formula scalar. Spreadsheets show such a cell as text.
    ///
    /// The rule is reversible (`removingFormulaGuard`): a value that starts with `'` followed by a
    /// formula scalar gets a second `'`, so reading strips exactly the one that writing added.
    static func formulaSafe(_ value: String) -> String {
        startsWithFormula(value) ? "'" + value : value
    }

    /// The inverse of `formulaSafe`, for reading a cell back: removes one leading `'` when the
    /// rest, after any further `'`, starts with a formula scalar; other cells are kept as is.
    static func removingFormulaGuard(_ cell: String) -> String {
        guard cell.unicodeScalars.first == "'", startsWithFormula(cell) else { return cell }
        return String(cell.unicodeScalars.dropFirst())
    }
}
