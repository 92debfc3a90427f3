import PassServerTesting
import Testing

/// The headers every HTML page must carry, checked on a response as the browser receives it.
/// Page tests call `expectSecurityHeaders` on each page they fetch.
enum SecurityHeaders {
    /// The directives of a Content-Security-Policy: name → its sources.
    static func directives(_ policy: String) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for directive in policy.split(separator: ";") {
            let words = directive.split(separator: " ").map(String.init)
            guard let name = words.first else { continue }
            result[name.lowercased()] = Array(words.dropFirst())
        }
        return result
    }

    /// Every problem with `headers` (name, value pairs as received), empty when they are right.
    static func problems(_ headers: [(String, String)]) -> [String] {
        func value(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var problems: [String] = []
        if let policy = value("Content-Security-Policy") {
            let directives = directives(policy)
            // script-src falls back to default-src; without either, any script may run.
            if let scripts = directives["script-src"] ?? directives["default-src"] {
                let unsafe = scripts.filter { ["'unsafe-inline'", "'unsafe-eval'", "*", "data:", "http:", "https:"].contains($0.lowercased()) }
                if !unsafe.isEmpty { problems.append("script-src allows \(unsafe.joined(separator: " ")) in \(policy)") }
            } else {
                problems.append("no script-src or default-src in \(policy)")
            }
            if directives["frame-ancestors"] != ["'none'"] { problems.append("frame-ancestors is not 'none' in \(policy)") }
            if directives["object-src"] != ["'none'"] && directives["default-src"]?.contains("'none'") != true {
                problems.append("object-src is not 'none' in \(policy)")
            }
        } else {
            problems.append("no Content-Security-Policy")
        }
        if value("X-Content-Type-Options")?.lowercased() != "nosniff" { problems.append("X-Content-Type-Options is not nosniff") }
        if value("Referrer-Policy")?.lowercased() != "no-referrer" { problems.append("Referrer-Policy is not no-referrer") }
        if value("Content-Type")?.lowercased().hasPrefix("text/html") != true { problems.append("not text/html: \(value("Content-Type") ?? "none")") }
        return problems
    }
}

/// Records an issue for each header an HTML page lacks or has wrong.
func expectSecurityHeaders(_ response: TestResponse, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
    for problem in SecurityHeaders.problems(response.headers) {
        Issue.record("\(what.isEmpty ? "" : what + ": ")\(problem)", sourceLocation: sourceLocation)
    }
}
