import ByteEncoding
import Foundation

/// pass.json compiled once per template: constant subtrees are kept as finished values and only
/// the parts holding `{{placeholders}}` are rebuilt for each pass.
///
/// Strings are split into literal and placeholder segments at load time, so rendering does no
/// scanning; object members without placeholders come from a prepared base, and their JSON
/// bytes are serialized once, so pass.json is written while the tree is built.
indirect enum TemplateNode: Sendable {
    /// A subtree without placeholders, with its serialized bytes.
    case constant(JSONValue, bytes: [UInt8])
    /// A string that is exactly one placeholder: it takes the value's JSON type.
    case placeholder(name: String, path: String)
    /// Text mixing literals and placeholders.
    case text([Segment], path: String)
    /// An array with at least one dynamic element.
    case array([TemplateNode])
    /// An object with at least one dynamic member; `base` holds the constant members and
    /// `entries` every member in serialization (sorted key) order.
    case object(base: [String: JSONValue], entries: [Entry])

    /// One piece of a text node.
    enum Segment: Sendable {
        case literal(String)
        case placeholder(String)
    }

    /// One member of a dynamic object, in output order.
    enum Entry: Sendable {
        /// `"key":value` already serialized.
        case constant(bytes: [UInt8])
        /// `"key":` serialized; the value is rendered per pass.
        case dynamic(key: String, keyBytes: [UInt8], node: TemplateNode)
    }

    /// Compiles a parsed pass.json; `path` names the node in error messages (`a.b[2].c`).
    static func compile(_ value: JSONValue, path: String = "") -> TemplateNode {
        switch value {
        case .string(let text):
            return compile(text: text, path: path.isEmpty ? "pass.json" : path)
        case .array(let items):
            let nodes = items.enumerated().map { compile($0.element, path: "\(path)[\($0.offset)]") }
            return nodes.allSatisfy(\.isConstant) ? constant(value) : .array(nodes)
        case .object(let members):
            var base: [String: JSONValue] = [:]
            var entries: [Entry] = []
            var dynamic = false
            // Same order as JSONValue.serialized, so both produce identical bytes.
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                var keyBytes: [UInt8] = []
                JSONString.append(key, to: &keyBytes)
                keyBytes.append(UInt8(ascii: ":"))
                let node = compile(member, path: path.isEmpty ? key : "\(path).\(key)")
                if case .constant(let constant, let bytes) = node {
                    base[key] = constant
                    entries.append(.constant(bytes: keyBytes + bytes))
                } else {
                    dynamic = true
                    entries.append(.dynamic(key: key, keyBytes: keyBytes, node: node))
                }
            }
            return dynamic ? .object(base: base, entries: entries) : constant(value)
        case .null, .bool, .number:
            return constant(value)
        }
    }

    private static func constant(_ value: JSONValue) -> TemplateNode { .constant(value, bytes: value.serialized) }

    private static func compile(text: String, path: String) -> TemplateNode {
        var segments: [Segment] = []
        var literal = Substring()
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            literal += rest[..<open.lowerBound]
            if !literal.isEmpty { segments.append(.literal(String(literal))) }
            literal = Substring()
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            segments.append(.placeholder(name))
            rest = rest[close.upperBound...]
        }
        literal += rest
        if !literal.isEmpty { segments.append(.literal(String(literal))) }
        switch segments.count {
        case 0: return constant(.string(text))
        case 1:
            if case .placeholder(let name) = segments[0] { return .placeholder(name: name, path: path) }
            return constant(.string(text))
        default: return .text(segments, path: path)
        }
    }

    private var isConstant: Bool { if case .constant = self { true } else { false } }

    /// Whether this is an object whose `value` member is rendered per pass (a field's value).
    private var rendersValue: Bool {
        guard case .object(_, let entries) = self else { return false }
        return entries.contains { entry in if case .dynamic(let key, _, _) = entry { key == "value" } else { false } }
    }

    /// Renders the node and appends its JSON to `out` in the same pass; returns nil (and appends
    /// nothing) when the node disappears (see `Template.render`). The bytes equal
    /// `value.serialized` of the returned tree, constant parts being copied, not re-encoded.
    func render(_ values: [String: JSONValue], into out: inout [UInt8]) throws(PassBundleError) -> JSONValue? {
        switch self {
        case .constant(let value, let bytes):
            out.append(contentsOf: bytes)
            return value
        case .placeholder(let name, let path):
            let value = try Self.lookup(name, values, path)
            if case .null = value { return nil }
            value.write(to: &out)
            return value
        case .text(let segments, let path):
            var output = ""
            for segment in segments {
                switch segment {
                case .literal(let text): output += text
                case .placeholder(let name): output += try Self.lookup(name, values, path).text
                }
            }
            JSONString.append(output, to: &out)
            return .string(output)
        case .array(let nodes):
            let start = out.count
            out.append(UInt8(ascii: "["))
            var rendered: [JSONValue] = []
            rendered.reserveCapacity(nodes.count)
            for node in nodes {
                let mark = out.count
                if !rendered.isEmpty { out.append(UInt8(ascii: ",")) }
                guard let value = try node.render(values, into: &out) else {
                    out.removeSubrange(mark...)
                    continue
                }
                // A dynamic object that rendered empty lost all its members, and a field whose
                // value was removed (a date of an event without an end) has nothing to show: drop either.
                if case .object(let members) = value, !node.isConstant, members.isEmpty || (members["value"] == nil && node.rendersValue) {
                    out.removeSubrange(mark...)
                    continue
                }
                rendered.append(value)
            }
            guard !rendered.isEmpty else {
                out.removeSubrange(start...)
                return nil
            }
            out.append(UInt8(ascii: "]"))
            return .array(rendered)
        case .object(let base, let entries):
            var members = base
            var first = true
            out.append(UInt8(ascii: "{"))
            for entry in entries {
                let mark = out.count
                if !first { out.append(UInt8(ascii: ",")) }
                switch entry {
                case .constant(let bytes):
                    out.append(contentsOf: bytes)
                    first = false
                case .dynamic(let key, let keyBytes, let node):
                    out.append(contentsOf: keyBytes)
                    if let value = try node.render(values, into: &out) {
                        members[key] = value
                        first = false
                    } else {
                        out.removeSubrange(mark...)
                    }
                }
            }
            out.append(UInt8(ascii: "}"))
            return .object(members)
        }
    }

    private static func lookup(_ name: String, _ values: [String: JSONValue], _ path: String) throws(PassBundleError) -> JSONValue {
        guard let value = values[name] else {
            throw PassBundleError(.unknownPlaceholder, "template placeholder {{\(name)}} at \(path) has no value")
        }
        return value
    }
}
