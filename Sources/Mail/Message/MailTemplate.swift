import Foundation

/// The texts of one kind of message in one language: a subject, a plain-text body and an HTML
/// body, with `{{name}}` placeholders, and `{{#name}}…{{/name}}` sections that are kept only when
/// `name` has a value that is not empty (sections do not nest).
///
/// A list (`lists`, such as an order's tickets) is a section too: `{{#tickets}}…{{/tickets}}` is
/// written once per item, its placeholders filled from the item's values first (the item's names
/// are known only inside the section), and left out when the list is empty.
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

        enum Part: Sendable, Equatable {
            case segment(Segment)
            /// `{{#name}}…{{/name}}`: kept when `name` has a value, or once per item of the list `name`.
            case section(String, [Segment])
        }

        var parts: [Part]

        /// Splits `source` at `{{name}}`, `{{#name}}` and `{{/name}}`; every name must be one of
        /// `names`, or a list's, or (inside that list's section) one of its items'.
        init(_ source: String, names: Set<String>, lists: [String: Set<String>] = [:], part: String) throws(MailError) {
            var parts: [Part] = []
            var section: (name: String, segments: [Segment])?
            func append(_ segment: Segment) {
                if section != nil { section?.segments.append(segment) } else { parts.append(.segment(segment)) }
            }
            var rest = Substring(source)
            while let open = rest.range(of: "{{") {
                if open.lowerBound > rest.startIndex { append(.literal(String(rest[..<open.lowerBound]))) }
                guard let close = rest[open.upperBound...].range(of: "}}") else {
                    throw MailError(.invalidText, "\(part): a {{ without its }}")
                }
                var name = rest[open.upperBound..<close.lowerBound].trimmingSpaces
                let marker = name.first.flatMap { "#/".contains($0) ? $0 : nil }
                if marker != nil { name = String(name.dropFirst()).trimmingSpaces }
                let known = names.union(lists.keys).union(section.flatMap { lists[$0.name] } ?? [])
                guard known.contains(name) else {
                    throw MailError(.invalidText, "\(part): unknown placeholder {{\(name)}} (known: \(known.sorted().joined(separator: ", ")))")
                }
                switch marker {
                case "#"?:
                    if let open = section { throw MailError(.invalidText, "\(part): {{#\(name)}} inside {{#\(open.name)}} (sections do not nest)") }
                    section = (name, [])
                case "/"?:
                    guard let open = section, open.name == name else { throw MailError(.invalidText, "\(part): {{/\(name)}} closes no open {{#\(name)}}") }
                    parts.append(.section(open.name, open.segments))
                    section = nil
                default:
                    guard lists[name] == nil else { throw MailError(.invalidText, "\(part): the list {{\(name)}} is written as {{#\(name)}}…{{/\(name)}}") }
                    append(.value(name))
                }
                rest = rest[close.upperBound...]
            }
            if let section { throw MailError(.invalidText, "\(part): {{#\(section.name)}} without its {{/\(section.name)}}") }
            if !rest.isEmpty { parts.append(.segment(.literal(String(rest)))) }
            self.parts = parts
        }

        /// The text with `value` of each placeholder; a section is written once per item of its
        /// list (`items`, whose values, already escaped, come first), or once when `present` says
        /// its name has a value, else left out.
        func render(_ value: (String) -> String, present: (String) -> Bool, items: (String) -> [[String: String]]?) -> String {
            func write(_ segments: [Segment], _ lookup: (String) -> String) -> String {
                segments.map { segment in
                    switch segment {
                    case .literal(let text): text
                    case .value(let name): lookup(name)
                    }
                }.joined()
            }
            return parts.map { part in
                switch part {
                case .segment(let segment):
                    return write([segment], value)
                case .section(let name, let segments):
                    if let list = items(name) {
                        return list.map { item in write(segments) { item[$0] ?? value($0) } }.joined()
                    }
                    return present(name) ? write(segments, value) : ""
                }
            }.joined()
        }
    }

    let subject: Text
    let text: Text
    let html: Text

    /// Checks the three texts; `placeholders` are the names a value may be given for, `lists` the
    /// names of lists with the names each item gives values for.
    public init(subject: String, text: String, html: String, placeholders: Set<String>, lists: [String: Set<String>] = [:]) throws(MailError) {
        self.subject = try Text(subject, names: placeholders, lists: lists, part: "subject")
        self.text = try Text(text, names: placeholders, lists: lists, part: "plain text")
        self.html = try Text(html, names: placeholders, lists: lists, part: "HTML")
    }

    /// The subject, plain text and HTML with `values` filled in (a missing value is empty, and
    /// leaves out its sections), and each list's section written once per item of `lists`.
    public func render(_ values: [String: String], lists: [String: [[String: String]]] = [:]) -> (subject: String, text: String, html: String) {
        let present = { (name: String) in !(values[name] ?? "").isEmpty }
        func rendered(_ text: Text, _ escape: (String) -> String) -> String {
            text.render({ escape(values[$0] ?? "") }, present: present) { name in
                lists[name].map { items in items.map { $0.mapValues(escape) } }
            }
        }
        let line = { (value: String) in HeaderText.singleLine(value, limit: 2_000) }
        return (
            HeaderText.singleLine(rendered(subject, line), limit: 900),
            rendered(text, line),
            rendered(html) { HTMLText.escape(line($0)) }
        )
    }
}

extension Substring {
    var trimmingSpaces: String { String(self).trimmingSpaces }
}
