/// The path as the access log shows it, with secrets in it cut short.
///
/// A route parameter whose name contains `token` (for example `/download/:downloadToken`) is a
/// secret. Any request path that starts like such a route up to that parameter, whether it
/// matched a route or not (a 404 with an extra segment, a 405, a HEAD, a different letter case,
/// percent-encoded letters), is logged with everything from that position on replaced by its
/// first four characters and `…`. The query is never logged.
struct LoggedPath: Sendable {
    /// For each route with a secret parameter: the segments before it (`nil` for a parameter).
    private let secretPrefixes: [[String?]]
    /// The most segments any of them has.
    private let longestPrefix: Int
    /// Longest logged path; the rest is cut.
    static let maxLength = 512

    init(routes: [[Router.Segment]]) {
        var prefixes: [[String?]] = []
        for segments in routes {
            guard let position = segments.firstIndex(where: { if case .parameter(let name) = $0 { Self.isSecret(name) } else { false } })
            else { continue }
            let prefix: [String?] = segments[..<position].map { if case .literal(let text) = $0 { text.lowercased() } else { nil } }
            if !prefixes.contains(prefix) { prefixes.append(prefix) }
        }
        secretPrefixes = prefixes
        longestPrefix = prefixes.map(\.count).max() ?? 0
    }

    /// `rawPath` (no query, still percent-encoded) as it may be logged.
    func redact(_ rawPath: String) -> String {
        guard !secretPrefixes.isEmpty else { return String(rawPath.prefix(Self.maxLength)) }
        let raw = rawPath.split(separator: "/", omittingEmptySubsequences: false)
        // Empty and "." segments are skipped when matching: `//download/…` is still a download link.
        let significant = raw.indices.filter { !raw[$0].isEmpty && raw[$0] != "." }
        // The segments as literals are compared (percent-decoded, lowercased), each worked out once
        // however many prefixes there are, and only as far as the longest prefix reaches.
        let compared = significant.prefix(longestPrefix).map { Self.comparable(raw[$0]) }
        for prefix in secretPrefixes where significant.count > prefix.count {
            guard zip(prefix, compared).allSatisfy({ expected, segment in expected == nil || expected == segment }) else { continue }
            let start = significant[prefix.count]
            let kept = raw[..<start].joined(separator: "/")
            let secret = raw[start...].joined(separator: "/")
            let shown = secret.count > 4 ? secret.prefix(4) + "…" : Substring(secret)
            return String((kept + "/" + shown).prefix(Self.maxLength))
        }
        return String(rawPath.prefix(Self.maxLength))
    }

    static func isSecret(_ name: String) -> Bool {
        name.lowercased().contains("token")
    }

    /// A segment as literals are compared: percent-decoded and lowercased (as is when it does not
    /// decode).
    private static func comparable(_ segment: Substring) -> String {
        (PercentDecoding.decode(segment) ?? String(segment)).lowercased()
    }
}
