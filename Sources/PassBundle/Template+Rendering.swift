import Foundation

extension Template {
    /// Fills the `{{name}}` placeholders of pass.json with `values`.
    ///
    /// Substitution happens inside the parsed JSON's string values, never in the JSON text, so a
    /// value such as `"}],"voided":true,"x":"` stays one string and cannot change the structure.
    /// - A string that is exactly `{{name}}` becomes the value itself (a Bool stays a Bool); a
    ///   `.null` value removes the key, objects left empty by that are dropped from arrays, and
    ///   arrays emptied that way are removed too.
    /// - A placeholder inside longer text is replaced by the value's text (`.null` → "").
    /// - A placeholder with no value is an error naming it and where it is.
    public func render(_ values: [String: JSONValue]) throws(PassBundleError) -> JSONValue {
        try Self.render(passJSON, values: values, path: "") ?? .object([:])
    }

    /// Returns nil when the node should disappear.
    private static func render(_ node: JSONValue, values: [String: JSONValue], path: String) throws(PassBundleError) -> JSONValue? {
        switch node {
        case .string(let text):
            return try substitute(text, values: values, path: path)
        case .array(let items):
            var rendered: [JSONValue] = []
            for (index, item) in items.enumerated() {
                guard let value = try render(item, values: values, path: "\(path)[\(index)]") else { continue }
                if case .object(let members) = value, members.isEmpty, item != .object([:]) { continue }
                rendered.append(value)
            }
            return rendered.isEmpty && !items.isEmpty ? nil : .array(rendered)
        case .object(let members):
            var rendered: [String: JSONValue] = [:]
            for (key, member) in members {
                if let value = try render(member, values: values, path: path.isEmpty ? key : "\(path).\(key)") {
                    rendered[key] = value
                }
            }
            return .object(rendered)
        case .null, .bool, .number:
            return node
        }
    }

    private static func substitute(_ text: String, values: [String: JSONValue], path: String) throws(PassBundleError) -> JSONValue? {
        guard text.contains("{{") else { return .string(text) }
        // A string that is one placeholder takes the value's own JSON type.
        if text.hasPrefix("{{"), text.hasSuffix("}}"), text.count >= 4 {
            let inner = text.dropFirst(2).dropLast(2)
            if !inner.contains("{{"), !inner.contains("}}") {
                let value = try lookup(String(inner), values: values, path: path)
                if case .null = value { return nil }
                return value
            }
        }
        var output = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            let value = try lookup(String(rest[open.upperBound..<close.lowerBound]), values: values, path: path)
            output += rest[..<open.lowerBound]
            output += value.text
            rest = rest[close.upperBound...]
        }
        output += rest
        return .string(output)
    }

    private static func lookup(_ rawName: String, values: [String: JSONValue], path: String) throws(PassBundleError) -> JSONValue {
        let name = rawName.trimmingCharacters(in: .whitespaces)
        guard let value = values[name] else {
            throw PassBundleError(.unknownPlaceholder, "template placeholder {{\(name)}} at \(path.isEmpty ? "pass.json" : path) has no value")
        }
        return value
    }
}

extension JSONValue {
    /// The value as text inside a longer string.
    var text: String {
        switch self {
        case .null: ""
        case .bool(let value): value ? "true" : "false"
        case .number(let value): JSONValue.format(value)
        case .string(let value): value
        case .array, .object: String(decoding: serialized, as: UTF8.self)
        }
    }
}
