import Foundation
import PassBundle
import Storage

extension AdminInput {
    /// The `extra` object: values for the fields the event's template declares (see
    /// `TemplateField`), each checked against its declaration; any other key is refused.
    ///
    /// `creating`: a new ticket, so every required field must have a value. Otherwise (a change)
    /// only the fields named are returned, and `null` removes an optional field's value.
    mutating func extras(declared: [TemplateField], creating: Bool) -> [String: ExtraValue?] {
        let raw = value("extra")
        if raw == nil || (creating && raw is NSNull) {
            if creating {
                for field in declared where field.required { problem("extra.\(field.name)", "is required") }
            }
            return [:]
        }
        guard let object = raw as? [String: Any] else {
            problem("extra", "must be an object")
            return [:]
        }
        var nested = AdminInput(object: object, allowed: Set(declared.map(\.name)), prefix: "extra.")
        var values: [String: ExtraValue?] = [:]
        for field in declared {
            switch object[field.name] {
            case nil:
                if creating && field.required { nested.problem(field.name, "is required") }
            case is NSNull:
                if creating || field.required { nested.problem(field.name, "must not be null") } else { values[field.name] = .some(nil) }
            case let value?:
                if let checked = nested.check(value, for: field) { values[field.name] = .some(checked) }
            }
        }
        absorb(nested)
        return values
    }

    /// `value` as the declared field takes it, or nil after naming the problem.
    private mutating func check(_ value: Any, for field: TemplateField) -> ExtraValue? {
        switch field.kind {
        case .integer(let minimum, let maximum):
            guard !(value is Bool), !(value is String), let number = value as? Int64 else {
                problem(field.name, "must be a whole number")
                return nil
            }
            guard (minimum...maximum).contains(number) else {
                problem(field.name, "must be \(minimum) to \(maximum)")
                return nil
            }
            return .integer(number)
        case .enumeration(let allowed):
            guard let text = value as? String else {
                problem(field.name, "must be a string")
                return nil
            }
            guard allowed.contains(text) else {
                problem(field.name, "must be one of \(allowed.joined(separator: ", "))")
                return nil
            }
            return .string(text)
        case .string(let maxLength, let multiline):
            guard let raw = value as? String else {
                problem(field.name, "must be a string")
                return nil
            }
            // Line breaks are kept as LF, whatever the client's platform wrote.
            let text = multiline ? raw.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n") : raw
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty {
                problem(field.name, "must not be empty")
            } else if trimmed.unicodeScalars.count > maxLength {
                problem(field.name, "must be at most \(maxLength) characters")
            } else if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !(multiline && $0 == "\n") }) {
                problem(field.name, multiline ? "must not contain control characters other than line breaks" : "must not contain control characters")
            } else {
                return .string(trimmed)
            }
            return nil
        }
    }
}
