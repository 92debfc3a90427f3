/// Small text helpers for header values and diagnostics, without pulling in Foundation.
extension String {
    /// Without leading and trailing spaces and tabs (HTTP optional whitespace).
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }

    /// Without any of the characters in `set` at either end.
    func strippingEdges(of set: String) -> String {
        var text = Substring(self)
        while let last = text.last, set.contains(last) { text.removeLast() }
        while let first = text.first, set.contains(first) { text.removeFirst() }
        return String(text)
    }
}
