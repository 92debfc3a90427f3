extension Template {
    /// Fills the `{{name}}` placeholders of pass.json with `values`.
    ///
    /// Substitution happens inside the parsed JSON's string values, never in the JSON text, so a
    /// value such as `"}],"voided":true,"x":"` stays one string and cannot change the structure.
    /// - A string that is exactly `{{name}}` becomes the value itself (a Bool stays a Bool); a
    ///   `.null` value removes the key, objects left empty by that are dropped from arrays (so are
    ///   fields left without their `value`), and arrays emptied that way are removed too.
    /// - A placeholder inside longer text is replaced by the value's text (`.null` → "").
    /// - A placeholder with no value is an error naming it and where it is, except
    ///   `{{extra.<name>}}` of a field the template declares (`fields`): without a value it shows
    ///   the field's default text, or nothing.
    public func render(_ values: [String: JSONValue]) throws(PassBundleError) -> JSONValue {
        try renderWithBytes(values).tree
    }

    /// The rendered tree and its serialization (identical to `tree.serialized`), made in one pass.
    func renderWithBytes(_ given: [String: JSONValue]) throws(PassBundleError) -> (tree: JSONValue, bytes: [UInt8]) {
        var values = given
        for field in fields where values["extra." + field.name] == nil {
            values["extra." + field.name] = .string(field.defaultText ?? "")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096)
        guard let tree = try compiled.render(values, into: &bytes) else { return (.object([:]), Array("{}".utf8)) }
        return (tree, bytes)
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
