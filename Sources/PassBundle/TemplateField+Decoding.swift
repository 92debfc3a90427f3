import Foundation

extension TemplateField {
    /// Parses `fields.json`; every problem is reported at once as an `.invalidTemplate` error
    /// whose `issues` name the field (`fields[1].maxLength: …`).
    static func decode(_ bytes: [UInt8], template: String) throws(PassBundleError) -> [TemplateField] {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw PassBundleError(.invalidTemplate, "template \(template): \(fileName) is not valid JSON", underlying: error)
        }
        var issues: [PassBundleError.Issue] = []
        guard case .object(let object) = root, case .array(let items)? = object["fields"], object.count == 1 else {
            throw PassBundleError(.invalidTemplate, "template \(template): \(fileName) must be an object with one key, \"fields\", an array")
        }
        var fields: [TemplateField] = []
        var names = Set<String>()
        for (index, item) in items.enumerated() {
            var reader = FieldReader(path: "fields[\(index)]", value: item)
            let field = reader.field()
            if case .object(let members) = item, case .string(let name)? = members["name"], !names.insert(name).inserted {
                reader.fail("name", "\"\(name)\" is declared twice")
            } else if let field {
                fields.append(field)
            }
            issues += reader.issues
        }
        guard issues.isEmpty else {
            throw PassBundleError(.invalidTemplate, "template \(template): \(fileName) is invalid", issues: issues)
        }
        return fields
    }
}

/// Reads one field declaration, collecting problems.
private struct FieldReader {
    let path: String
    let members: [String: JSONValue]
    var issues: [PassBundleError.Issue] = []

    init(path: String, value: JSONValue) {
        self.path = path
        if case .object(let members) = value {
            self.members = members
        } else {
            members = [:]
            issues.append(.init(key: path, problem: "must be an object"))
        }
    }

    mutating func fail(_ key: String, _ problem: String) {
        issues.append(.init(key: "\(path).\(key)", problem: problem))
    }

    mutating func field() -> TemplateField? {
        guard issues.isEmpty else { return nil }
        let type = string("type")
        let allowed: Set<String> = switch type {
        case "string": ["name", "type", "required", "default", "maxLength", "multiline"]
        case "integer": ["name", "type", "required", "default", "minimum", "maximum"]
        case "enum": ["name", "type", "required", "default", "values"]
        default: ["name", "type", "required", "default"]
        }
        for key in members.keys.sorted() where !allowed.contains(key) { fail(key, "unknown key for a field of type \(type ?? "?")") }
        let name = string("name")
        if let name, !Self.isValidName(name) {
            fail("name", "must be a letter followed by at most 31 letters or digits")
        } else if let name, TemplateField.reservedNames.contains(name) {
            fail("name", "\"\(name)\" is reserved")
        } else if name == nil {
            fail("name", "is required")
        }
        let required = bool("required") ?? false
        let defaultText = string("default")
        if required && defaultText != nil { fail("default", "a required field needs no default") }
        var kind: TemplateField.Kind?
        switch type {
        case "string":
            let maxLength = integer("maxLength") ?? 200
            if !(1...1000).contains(maxLength) { fail("maxLength", "must be 1 to 1000") }
            kind = .string(maxLength: Int(maxLength), multiline: bool("multiline") ?? false)
        case "integer":
            let limit = TemplateField.largestInteger
            let minimum = integer("minimum") ?? -limit
            let maximum = integer("maximum") ?? limit
            if abs(minimum) > limit || abs(maximum) > limit { fail("minimum", "bounds must be within ±\(limit)") }
            if minimum > maximum { fail("maximum", "must not be below minimum") }
            kind = .integer(minimum: minimum, maximum: maximum)
        case "enum":
            kind = .enumeration(values: values())
        case nil:
            fail("type", "is required")
        case let other?:
            fail("type", "\"\(other)\" is not one of string, integer, enum")
        }
        guard issues.isEmpty, let name, let kind else { return nil }
        return TemplateField(name: name, kind: kind, required: required, defaultText: defaultText)
    }

    private mutating func values() -> [String] {
        guard case .array(let items)? = members["values"] else {
            fail("values", "is required: an array of texts")
            return []
        }
        var values: [String] = []
        for item in items {
            guard case .string(let text) = item, (1...64).contains(text.unicodeScalars.count) else {
                fail("values", "each value must be a text of 1 to 64 characters")
                return []
            }
            if values.contains(text) { fail("values", "\"\(text)\" appears twice") }
            values.append(text)
        }
        if !(1...100).contains(values.count) { fail("values", "must hold 1 to 100 values") }
        return values
    }

    private mutating func string(_ key: String) -> String? {
        switch members[key] {
        case nil: return nil
        case .string(let text)?: return text
        default: fail(key, "must be a string"); return nil
        }
    }

    private mutating func bool(_ key: String) -> Bool? {
        switch members[key] {
        case nil: return nil
        case .bool(let value)?: return value
        default: fail(key, "must be true or false"); return nil
        }
    }

    private mutating func integer(_ key: String) -> Int64? {
        switch members[key] {
        case nil: return nil
        case .number(let value)? where value == value.rounded() && abs(value) <= 9.2e18: return Int64(value)
        default: fail(key, "must be a whole number"); return nil
        }
    }

    private static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 32, isLetter(first) else { return false }
        return bytes.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
