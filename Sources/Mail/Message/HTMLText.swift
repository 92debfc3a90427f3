/// Text made safe inside HTML, as element content or a quoted attribute value.
public enum HTMLText {
    /// `&`, `<`, `>`, `"` and `'` as character references. Scalar by scalar: a quote followed by
    /// a combining mark is one `Character` in Swift, but to a browser it is still a quote.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
