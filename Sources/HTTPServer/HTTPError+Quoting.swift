extension HTTPError {
    /// A client's name (a query parameter, a CSV column) as an error message quotes it back: at most
    /// 64 Unicode scalars, then `…`, with every control character shown as `?`.
    public static func quoting(_ name: String) -> String {
        let scalars = name.unicodeScalars
        var text = String(String.UnicodeScalarView(scalars.prefix(64).map { $0.properties.generalCategory == .control ? "?" : $0 }))
        if scalars.count > 64 { text += "…" }
        return text
    }
}
