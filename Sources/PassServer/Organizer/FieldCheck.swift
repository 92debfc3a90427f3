import Foundation
import PassBundle
import Storage

/// Checks the fields of a draft one after the other and collects every problem, so one refusal
/// names them all, in the order the fields are documented.
///
/// A transport that could not read a field (a number where a text belongs, an unknown field)
/// hands its problems in as `reported`: problems with fields the operation does not take come
/// first, the others where their field is checked; a field with a reported problem is not
/// checked again.
struct FieldCheck {
    typealias Issue = OrganizerError.Issue

    private var reported: [Issue]
    private(set) var issues: [Issue]

    init(reported: [Issue], fields: [String]) {
        let known = Set(fields)
        issues = reported.filter { !known.contains(Self.base($0.field)) }
        self.reported = reported.filter { known.contains(Self.base($0.field)) }
    }

    /// `extra` of `extra.tier`.
    private static func base(_ field: String) -> String {
        field.firstIndex(of: ".").map { String(field[..<$0]) } ?? field
    }

    /// Whether nothing is wrong so far (reported problems not yet placed included).
    var isValid: Bool { issues.isEmpty && reported.isEmpty }

    /// Every problem, the reported ones not yet placed last.
    var allIssues: [Issue] { issues + reported }

    /// Throws `OrganizerError.invalid` naming every problem, if any.
    func validate() throws(OrganizerError) {
        guard isValid else { throw .invalid(allIssues) }
    }

    mutating func problem(_ field: String, _ message: String) {
        issues.append(Issue(field, message))
    }

    /// Places the transport's problems with `field` here; whether there were any.
    mutating func wasReported(_ field: String) -> Bool {
        let found = reported.filter { $0.field == field }
        guard !found.isEmpty else { return false }
        issues += found
        reported.removeAll { $0.field == field }
        return true
    }

    /// `value` unless the transport could not read the field.
    mutating func value<T>(_ field: String, _ value: T?) -> T? {
        wasReported(field) ? nil : value
    }

    /// A value that must be there: "is required" when it is not (and the transport read nothing wrong).
    mutating func required<T>(_ field: String, _ value: T?) -> T? {
        if wasReported(field) { return nil }
        if value == nil { problem(field, "is required") }
        return value
    }

    /// `raw` checked by `rule`; nil when absent or after naming its problem.
    mutating func apply(_ field: String, _ raw: String?, _ rule: (String) -> Result<String, FieldRules.Problem>) -> String? {
        guard !wasReported(field), let raw else { return nil }
        switch rule(raw) {
        case .success(let value): return value
        case .failure(let failure):
            problem(field, failure.message)
            return nil
        }
    }

    mutating func text(_ field: String, _ raw: String?, maxLength: Int = 200) -> String? {
        apply(field, raw) { FieldRules.text($0, maxLength: maxLength) }
    }

    mutating func requiredText(_ field: String, _ raw: String?, maxLength: Int = 200) -> String? {
        if raw == nil, !wasReported(field) {
            problem(field, "is required")
            return nil
        }
        return text(field, raw, maxLength: maxLength)
    }

    /// A change of an optional text: nil leaves it, `.some(nil)` clears it, a value is checked by `rule`.
    mutating func change(_ field: String, _ raw: String??, _ rule: (String) -> Result<String, FieldRules.Problem>) -> String?? {
        if wasReported(field) { return nil }
        guard let raw else { return nil }
        guard let value = raw else { return .some(nil) }
        return apply(field, value, rule).map { .some($0) }
    }

    /// A whole number in `range`.
    mutating func integer(_ field: String, _ value: Int?, in range: ClosedRange<Int>) -> Int? {
        guard let value = self.value(field, value) else { return nil }
        guard range.contains(value) else {
            problem(field, "must be \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return value
    }

    // MARK: Extra fields

    /// The `extra` values: for the fields the event's template declares (see `TemplateField`),
    /// each checked against its declaration; any other key is refused.
    ///
    /// `creating`: a new ticket, so every required field must have a value. Otherwise (a change)
    /// only the fields given are returned, and `null` removes an optional field's value.
    mutating func extras(_ values: [String: ExtraInput]?, declared: [TemplateField], creating: Bool) -> [String: ExtraValue?] {
        if wasReported("extra") { return [:] }
        guard let values else {
            if creating {
                for field in declared where field.required { problem("extra.\(field.name)", "is required") }
            }
            return [:]
        }
        let names = Set(declared.map(\.name))
        for key in values.keys.sorted() where !names.contains(key) {
            problem("extra.\(key)", "unknown field")
        }
        var checked: [String: ExtraValue?] = [:]
        for field in declared {
            let name = "extra.\(field.name)"
            switch values[field.name] {
            case nil:
                if creating && field.required { problem(name, "is required") }
            case .null?:
                if creating || field.required { problem(name, "must not be null") } else { checked[field.name] = .some(nil) }
            case let value?:
                if let value = check(value, for: field, name: name) { checked[field.name] = .some(value) }
            }
        }
        return checked
    }

    /// `value` as the declared field takes it, or nil after naming the problem.
    private mutating func check(_ value: ExtraInput, for field: TemplateField, name: String) -> ExtraValue? {
        switch field.kind {
        case .integer(let minimum, let maximum):
            guard case .number(let number) = value, number == number.rounded(), abs(number) <= Double(TemplateField.largestInteger) else {
                problem(name, "must be a whole number")
                return nil
            }
            guard (Double(minimum)...Double(maximum)).contains(number) else {
                problem(name, "must be \(minimum) to \(maximum)")
                return nil
            }
            return .integer(Int64(number))
        case .enumeration(let allowed):
            guard case .text(let text) = value else {
                problem(name, "must be a string")
                return nil
            }
            guard allowed.contains(text) else {
                problem(name, "must be one of \(allowed.joined(separator: ", "))")
                return nil
            }
            return .string(text)
        case .string(let maxLength, let multiline):
            guard case .text(let raw) = value else {
                problem(name, "must be a string")
                return nil
            }
            // As every text: the length as given, in Unicode scalars; no control characters
            // (but line breaks where the field allows them, kept as LF); not blank; trimmed.
            guard raw.unicodeScalars.count <= maxLength else {
                problem(name, "must be at most \(maxLength) characters (Unicode scalars)")
                return nil
            }
            let isLineBreak: (Unicode.Scalar) -> Bool = { $0 == "\n" || $0 == "\r" }
            if raw.unicodeScalars.contains(where: { AdminText.isControl($0) && !(multiline && isLineBreak($0)) }) {
                problem(name, multiline ? "must not contain control characters other than line breaks" : "must not contain control characters")
                return nil
            }
            let text = multiline ? raw.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n") : raw
            let trimmed = AdminText.trimmed(text).trimmingCharacters(in: .newlines)
            guard !trimmed.isEmpty else {
                problem(name, "must not be empty")
                return nil
            }
            return .string(trimmed)
        }
    }
}

/// A value given for one of the template's extra fields, before it is checked against the
/// field's declaration: a form gives texts (and numbers for number inputs), JSON any value.
enum ExtraInput: Equatable, Sendable {
    case text(String)
    case number(Double)
    /// Removes an optional field's value (a change only).
    case null
    /// A value of another kind (true/false, a list, an object).
    case other
}
