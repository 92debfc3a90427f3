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
        let members: [String: JSONValue]
        switch value("extra") {
        case nil:
            if creating {
                for field in declared where field.required { problem("extra.\(field.name)", "is required") }
            }
            return [:]
        case .object(let object)?:
            members = object
        case .null?:
            problem("extra", "must not be null")
            return [:]
        default:
            problem("extra", "must be an object")
            return [:]
        }
        var nested = AdminInput(object: members, allowed: Set(declared.map(\.name)), prefix: "extra.")
        var values: [String: ExtraValue?] = [:]
        for field in declared {
            switch members[field.name] {
            case nil:
                if creating && field.required { nested.problem(field.name, "is required") }
            case .null?:
                if creating || field.required { nested.problem(field.name, "must not be null") } else { values[field.name] = .some(nil) }
            case let value?:
                if let checked = nested.check(value, for: field) { values[field.name] = .some(checked) }
            }
        }
        absorb(nested)
        return values
    }

    /// `value` as the declared field takes it, or nil after naming the problem.
    private mutating func check(_ value: JSONValue, for field: TemplateField) -> ExtraValue? {
        switch field.kind {
        case .integer(let minimum, let maximum):
            guard case .number(let number) = value, number == number.rounded(), abs(number) <= Double(TemplateField.largestInteger) else {
                problem(field.name, "must be a whole number")
                return nil
            }
            guard (Double(minimum)...Double(maximum)).contains(number) else {
                problem(field.name, "must be \(minimum) to \(maximum)")
                return nil
            }
            return .integer(Int64(number))
        case .enumeration(let allowed):
            guard case .string(let text) = value else {
                problem(field.name, "must be a string")
                return nil
            }
            guard allowed.contains(text) else {
                problem(field.name, "must be one of \(allowed.joined(separator: ", "))")
                return nil
            }
            return .string(text)
        case .string(let maxLength, let multiline):
            guard case .string(let raw) = value else {
                problem(field.name, "must be a string")
                return nil
            }
            // As every admin text: the length as sent, in Unicode scalars; no control characters
            // (but line breaks where the field allows them, kept as LF); not blank; trimmed.
            guard raw.unicodeScalars.count <= maxLength else {
                problem(field.name, "must be at most \(maxLength) characters (Unicode scalars)")
                return nil
            }
            let isLineBreak: (Unicode.Scalar) -> Bool = { $0 == "\n" || $0 == "\r" }
            if raw.unicodeScalars.contains(where: { AdminText.isControl($0) && !(multiline && isLineBreak($0)) }) {
                problem(field.name, multiline ? "must not contain control characters other than line breaks" : "must not contain control characters")
                return nil
            }
            let text = multiline ? raw.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n") : raw
            let trimmed = AdminText.trimmed(text).trimmingCharacters(in: .newlines)
            guard !trimmed.isEmpty else {
                problem(field.name, "must not be empty")
                return nil
            }
            return .string(trimmed)
        }
    }
}
