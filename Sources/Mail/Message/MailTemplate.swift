import Foundation

/// The texts of one kind of message in one language: a subject, a plain-text body and an HTML
/// body, with `{{name}}` placeholders, and `{{#name}}…{{/name}}` sections that are kept only when
/// `name` has a value that is not empty (sections do not nest).
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

        /// Each segment with the section it is in (nil: outside every section).
        var segments: [(segment: Segment, section: String?)]

        static func == (lhs: Text, rhs: Text) -> Bool {
            lhs.segments.elementsEqual(rhs.segments) { $0.segment == $1.segment && $0.section == $1.section }
        }

        /// Splits `source` at `{{name}}`, `{{#name}}` and `{{/name}}`; every name must be one of `names`.
        init(_ source: String, names: Set<String>, part: String) throws(MailError) {
            var segments: [(segment: Segment, section: String?)] = []
            var section: String?
            var rest = Substring(source)
            while let open = rest.range(of: "{{") {
                if open.lowerBound > rest.startIndex { segments.append((.literal(String(rest[..<open.lowerBound])), section)) }
                guard let close = rest[open.upperBound...].range(of: "}}") else {
                    throw MailError(.invalidText, "\(part): a {{ without its }}")
                }
                var name = rest[open.upperBound..<close.lowerBound].trimmingSpaces
                let marker = name.first.flatMap { "#/".contains($0) ? $0 : nil }
                if marker != nil { name = String(name.dropFirst()).trimmingSpaces }
                guard names.contains(name) else {
                    throw MailError(.invalidText, "\(part): unknown placeholder {{\(name)}} (known: \(names.sorted().joined(separator: ", ")))")
                }
                switch marker {
                case "#"?:
                    guard section == nil else { throw MailError(.invalidText, "\(part): {{#\(name)}} inside {{#\(section ?? "")}} (sections do not nest)") }
                    section = name
                case "/"?:
                    guard section == name else { throw MailError(.invalidText, "\(part): {{/\(name)}} closes no open {{#\(name)}}") }
                    section = nil
                default:
                    segments.append((.value(name), section))
                }
                rest = rest[close.upperBound...]
            }
            if let section { throw MailError(.invalidText, "\(part): {{#\(section)}} without its {{/\(section)}}") }
            if !rest.isEmpty { segments.append((.literal(String(rest)), nil)) }
            self.segments = segments
        }

        /// The text with `value` of each placeholder; a section is left out when `present` says its name has no value.
        func render(_ value: (String) -> String, present: (String) -> Bool) -> String {
            segments.compactMap { segment, section in
                if let section, !present(section) { return nil }
                switch segment {
                case .literal(let text): return text
                case .value(let name): return value(name)
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

    /// The subject, plain text and HTML with `values` filled in (a missing value is empty, and
    /// leaves out its sections).
    public func render(_ values: [String: String]) -> (subject: String, text: String, html: String) {
        let line = { (name: String) in HeaderText.singleLine(values[name] ?? "", limit: 2_000) }
        let present = { (name: String) in !(values[name] ?? "").isEmpty }
        return (
            HeaderText.singleLine(subject.render(line, present: present), limit: 900),
            text.render(line, present: present),
            html.render({ HTMLText.escape(line($0)) }, present: present)
        )
    }
}

extension Substring {
    var trimmingSpaces: String { String(self).trimmingSpaces }
}
