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
        var path: [PathComponent] = []
        return try Self.render(passJSON, values: values, path: &path) ?? .object([:])
    }

    /// Returns nil when the node should disappear.
    /// One step of the location of a node, kept as a stack so no string is built unless an error
    /// needs it.
    enum PathComponent {
        case key(String)
        case index(Int)

        static func render(_ path: [PathComponent]) -> String {
            guard !path.isEmpty else { return "pass.json" }
            return path.reduce(into: "") { text, component in
                switch component {
                case .key(let key): text += text.isEmpty ? key : "." + key
                case .index(let index): text += "[\(index)]"
                }
            }
        }
    }

    private static func render(_ node: JSONValue, values: [String: JSONValue], path: inout [PathComponent]) throws(PassBundleError) -> JSONValue? {
        switch node {
        case .string(let text):
            return try substitute(text, values: values, path: path)
        case .array(let items):
            var rendered: [JSONValue] = []
            for (index, item) in items.enumerated() {
                path.append(.index(index))
                defer { path.removeLast() }
                guard let value = try render(item, values: values, path: &path) else { continue }
                if case .object(let members) = value, members.isEmpty, item != .object([:]) { continue }
                rendered.append(value)
            }
            return rendered.isEmpty && !items.isEmpty ? nil : .array(rendered)
        case .object(let members):
            var rendered: [String: JSONValue] = [:]
            rendered.reserveCapacity(members.count)
            for (key, member) in members {
                path.append(.key(key))
                defer { path.removeLast() }
                if let value = try render(member, values: values, path: &path) {
                    rendered[key] = value
                }
            }
            return .object(rendered)
        case .null, .bool, .number:
            return node
        }
    }

    private static func substitute(_ text: String, values: [String: JSONValue], path: [PathComponent]) throws(PassBundleError) -> JSONValue? {
        // Byte-level scanning: this runs for every string of every pass, and Foundation's
        // String searching is an order of magnitude slower here.
        let open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
        guard text.utf8.contains(open) else { return .string(text) }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var index = 0
        var copied = 0
        while index + 1 < bytes.count {
            guard bytes[index] == open, bytes[index + 1] == open else {
                index += 1
                continue
            }
            var end = index + 2
            while end + 1 < bytes.count, !(bytes[end] == close && bytes[end + 1] == close) { end += 1 }
            guard end + 1 < bytes.count else { break }
            let name = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
            let value = try lookup(name, values: values, path: path)
            // A string that is one placeholder takes the value's own JSON type.
            if index == 0, end + 2 == bytes.count {
                if case .null = value { return nil }
                return value
            }
            output.append(contentsOf: bytes[copied..<index])
            output.append(contentsOf: value.text.utf8)
            index = end + 2
            copied = index
        }
        if copied == 0 { return .string(text) }
        output.append(contentsOf: bytes[copied...])
        return .string(String(decoding: output, as: UTF8.self))
    }

    private static func lookup(_ rawName: String, values: [String: JSONValue], path: [PathComponent]) throws(PassBundleError) -> JSONValue {
        if let value = values[rawName] { return value }
        let name = rawName.trimmingCharacters(in: .whitespaces)
        guard let value = values[name] else {
            throw PassBundleError(.unknownPlaceholder, "template placeholder {{\(name)}} at \(PathComponent.render(path)) has no value")
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
