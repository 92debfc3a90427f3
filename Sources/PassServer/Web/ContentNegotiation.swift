import Foundation

/// Reading `Accept` and `Accept-Language` (RFC 9110 §12.5): which of a route's representations,
/// and which of its languages, a client prefers.
///
/// Headers are client input: unparseable parts are skipped, never an error, and only the first
/// few dozen entries are looked at.
enum ContentNegotiation {
    /// Entries of a header read at most (a browser sends fewer than ten).
    static let maxEntries = 32

    /// One `type/subtype;q=…` or `language;q=…` entry.
    struct Entry: Equatable {
        let value: String
        let quality: Double
    }

    /// The comma-separated entries of an `Accept`-style header, lowercased, each with its `q`
    /// (1 when absent; entries with an unreadable `q` are skipped).
    static func entries(_ header: String?) -> [Entry] {
        guard let header else { return [] }
        var entries: [Entry] = []
        for part in header.split(separator: ",").prefix(maxEntries) {
            let pieces = part.split(separator: ";")
            guard let first = pieces.first else { continue }
            let value = first.trimmingCharacters(in: .whitespaces).lowercased()
            guard !value.isEmpty else { continue }
            var quality = 1.0
            var readable = true
            for parameter in pieces.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                guard pair.count == 2, pair[0] == "q" else { continue }
                if let q = Double(pair[1]), (0...1).contains(q) { quality = q } else { readable = false }
            }
            if readable { entries.append(Entry(value: value, quality: quality)) }
        }
        return entries
    }

    /// The quality `accept` gives `mediaType` (`text/html`): that of the most specific range that
    /// matches it (`text/html` over `text/*` over `*/*`), 0 when none does. A missing header
    /// accepts everything equally (quality 1).
    static func quality(of mediaType: String, accept: String?) -> Double {
        let entries = entries(accept)
        guard accept != nil, !entries.isEmpty else { return 1 }
        let type = mediaType.lowercased()
        let major = type.prefix { $0 != "/" } + "/*"
        var best: (specificity: Int, quality: Double)?
        for entry in entries {
            // Media type parameters other than q (`text/html;level=1`) were dropped with the rest.
            let specificity: Int
            switch entry.value {
            case type: specificity = 2
            case major: specificity = 1
            case "*/*": specificity = 0
            default: continue
            }
            if best.map({ specificity > $0.specificity }) ?? true { best = (specificity, entry.quality) }
        }
        return best?.quality ?? 0
    }

    /// Whether the client prefers `preferred` to `other` strictly (equal qualities keep `other`).
    static func prefers(_ preferred: String, over other: String, accept: String?) -> Bool {
        quality(of: preferred, accept: accept) > quality(of: other, accept: accept)
    }

    /// The first of `available` (lowercase primary tags such as `en`, `ja`) that `acceptLanguage`
    /// asks for, highest quality first: an exact tag or its primary subtag (`ja-JP` → `ja`);
    /// `fallback` when it asks for none of them.
    static func language(acceptLanguage: String?, available: [String], fallback: String) -> String {
        let ranked = entries(acceptLanguage).enumerated()
            .filter { $0.element.quality > 0 }
            // Stable: equal qualities keep the client's order.
            .sorted { $0.element.quality != $1.element.quality ? $0.element.quality > $1.element.quality : $0.offset < $1.offset }
        for (_, entry) in ranked {
            if available.contains(entry.value) { return entry.value }
            let primary = String(entry.value.prefix { $0 != "-" && $0 != "_" })
            if available.contains(primary) { return primary }
        }
        return fallback
    }
}
