import Foundation
import PassBundle
import Storage

extension AdminInput {
    /// The members of the `extra` object as sent, for the organizer to check against the
    /// template's declarations; nil when absent, and after naming the problem when not an object.
    mutating func extraValues() -> [String: ExtraInput]? {
        switch value("extra") {
        case nil:
            return nil
        case .object(let members)?:
            return members.mapValues(ExtraInput.init(json:))
        case .null?:
            problem("extra", "must not be null")
            return nil
        default:
            problem("extra", "must be an object")
            return nil
        }
    }

    /// The `extra` object checked against the fields the event's template declares
    /// (`FieldCheck.extras`), its problems kept with these.
    mutating func extras(declared: [TemplateField], creating: Bool) -> [String: ExtraValue?] {
        let before = issues.count
        let values = extraValues()
        guard issues.count == before else { return [:] }
        var check = FieldCheck(reported: [], fields: ["extra"])
        let checked = check.extras(values, declared: declared, creating: creating)
        for issue in check.issues { problem(issue.field, issue.message) }
        return checked
    }
}

extension ExtraInput {
    /// A JSON value as given for an extra field.
    init(json: JSONValue) {
        switch json {
        case .string(let text): self = .text(text)
        case .number(let number): self = .number(number)
        case .null: self = .null
        default: self = .other
        }
    }
}
