import Foundation

/// The texts of one kind of message in one language: a subject, a plain-text body and an HTML
/// body, with `{{name}}` placeholders.
///
/// Every value is escaped for where it goes, by default and without exception: HTML-escaped in the
/// HTML body, put on one line in the subject (and encoded there by `MailMessage`), and put on one
/// line in the plain text (the values are names and places, never paragraphs). There is no way to
/// insert raw markup: a template's own HTML is the only markup a message has.
public struct MailTemplate: Sendable, Equatable {
    /// A text split at its placeholders.
    struct Text: Sendable, Equatable {
        enum Segment: Sendable, Equatable {
            case literal(String)
            case value(String)
        }

        var segments: [Segment]

        /// Splits `source` at `{{name}}`; every name must be one of `names`.
        init(_ source: String, names: Set<String>, part: String) throws(MailError) {
            var segments: [Segment] = []
            var rest = Substring(source)
            while let open = rest.range(of: "{{") {
                if open.lowerBound > rest.startIndex { segments.append(.literal(String(rest[..<open.lowerBound]))) }
                guard let close = rest[open.upperBound...].range(of: "}}") else {
                    throw MailError(.invalidText, "\(part): a {{ without its }}")
                }
                let name = rest[open.upperBound..<close.lowerBound].trimmingSpaces
                guard names.contains(name) else {
                    throw MailError(.invalidText, "\(part): unknown placeholder {{\(name)}} (known: \(names.sorted().joined(separator: ", ")))")
                }
                segments.append(.value(name))
                rest = rest[close.upperBound...]
            }
            if !rest.isEmpty { segments.append(.literal(String(rest))) }
            self.segments = segments
        }

        func render(_ value: (String) -> String) -> String {
            segments.map { segment in
                switch segment {
                case .literal(let text): text
                case .value(let name): value(name)
                }
            }.joined()
        }
    }

    let subject: Text
    let text: Text
    let html: Text

    /// Checks the three texts; `placeholders` are the names a value may be given for.
    public init(subject: String, text: String, html: String, placeholders: Set<String>) throws(MailError) {
        self.subject = try Text(subject, names: placeholders, part: "subject")
        self.text = try Text(text, names: placeholders, part: "plain text")
        self.html = try Text(html, names: placeholders, part: "HTML")
    }

    /// The subject, plain text and HTML with `values` filled in (a missing value is empty).
    public func render(_ values: [String: String]) -> (subject: String, text: String, html: String) {
        let line = { (name: String) in HeaderText.singleLine(values[name] ?? "", limit: 2_000) }
        return (
            HeaderText.singleLine(subject.render(line), limit: 900),
            text.render(line),
            html.render { HTMLText.escape(line($0)) }
        )
    }
}

extension Substring {
    var trimmingSpaces: String { String(self).trimmingSpaces }
}
