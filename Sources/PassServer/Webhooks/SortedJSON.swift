import Foundation

/// Writes an `Encodable` value as the admin API's encoder does (`JSONEncoder.api`: keys sorted,
/// slashes not escaped), for the webhook bodies every delivery makes: the same JSON for the same
/// value, at a fraction of the cost (no boxed intermediate tree, no dynamic casts per value).
/// `WebhookPayloadTests` holds its output to `JSONEncoder.api`'s, byte for byte.
///
/// It covers what those bodies hold: objects, arrays, strings, integers, booleans and nulls.
/// A floating-point number is refused (no body carries one).
enum SortedJSON {
    struct Unsupported: Error, CustomStringConvertible {
        var description: String
    }

    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = TreeEncoder()
        try value.encode(to: encoder)
        var out: [UInt8] = []
        out.reserveCapacity(2_048)
        encoder.root.write(to: &out)
        return out
    }

    /// A value as the encoder builds it; objects and arrays are boxes that their containers fill.
    fileprivate enum Node {
        case object(ObjectBox)
        case array(ArrayBox)
        case string(String)
        case number(String)
        case bool(Bool)
        case null

        func write(to out: inout [UInt8]) {
            switch self {
            case .object(let box):
                out.append(UInt8(ascii: "{"))
                // Byte order of the keys, as `.sortedKeys` orders ASCII keys.
                let fields = box.fields.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                for (index, field) in fields.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    SortedJSON.write(string: field.key, to: &out)
                    out.append(UInt8(ascii: ":"))
                    field.value.write(to: &out)
                }
                out.append(UInt8(ascii: "}"))
            case .array(let box):
                out.append(UInt8(ascii: "["))
                for (index, item) in box.items.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    item.write(to: &out)
                }
                out.append(UInt8(ascii: "]"))
            case .string(let text): SortedJSON.write(string: text, to: &out)
            case .number(let digits): out += digits.utf8
            case .bool(let flag): out += (flag ? "true" : "false").utf8
            case .null: out += "null".utf8
            }
        }
    }

    /// A string with JSON's escapes: the quote, the backslash and control characters (`\b \f \n
    /// \r \t`, the others as `\u00XX`); everything else, `/` included, as it is.
    fileprivate static func write(string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    fileprivate final class ObjectBox {
        var fields: [(key: String, value: Node)] = []

        func set(_ key: String, _ value: Node) {
            if let index = fields.firstIndex(where: { $0.key == key }) { fields[index].value = value } else { fields.append((key, value)) }
        }
    }

    fileprivate final class ArrayBox {
        var items: [Node] = []
    }

    /// The node a value of any type makes: the common scalars directly, anything else by its own `encode(to:)`.
    fileprivate static func node<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> Node {
        switch value {
        case let text as String: return .string(text)
        case let number as Int: return .number(String(number))
        case let number as Int64: return .number(String(number))
        case let flag as Bool: return .bool(flag)
        // Other integers and floating-point numbers would come back here through their own
        // `encode(to:)` (the containers' defaults forward them to the generic `encode`).
        case let number as any BinaryInteger: return .number("\(number)")
        case is any BinaryFloatingPoint: throw Unsupported(description: "a floating-point number")
        default:
            let encoder = TreeEncoder(codingPath: codingPath)
            try value.encode(to: encoder)
            return encoder.root
        }
    }

    fileprivate final class TreeEncoder: Encoder {
        var codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        /// What was encoded (null until a container is asked for).
        var root: Node = .null

        init(codingPath: [any CodingKey] = []) {
            self.codingPath = codingPath
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            let box: ObjectBox
            if case .object(let existing) = root {
                box = existing
            } else {
                box = ObjectBox()
                root = .object(box)
            }
            return KeyedEncodingContainer(Keyed<Key>(box: box, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            let box = ArrayBox()
            root = .array(box)
            return Unkeyed(box: box, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            Single(encoder: self)
        }
    }

    fileprivate struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let box: ObjectBox
        var codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { box.set(key.stringValue, .null) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { box.set(key.stringValue, .bool(value)) }
        mutating func encode(_ value: String, forKey key: Key) throws { box.set(key.stringValue, .string(value)) }
        mutating func encode(_ value: Int, forKey key: Key) throws { box.set(key.stringValue, .number(String(value))) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { box.set(key.stringValue, .number(String(value))) }
        mutating func encode(_ value: Double, forKey key: Key) throws { throw Unsupported(description: "a floating-point number at \(key.stringValue)") }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            box.set(key.stringValue, try SortedJSON.node(value, codingPath: codingPath + [key]))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let nested = ObjectBox()
            box.set(key.stringValue, .object(nested))
            return KeyedEncodingContainer(Keyed<NestedKey>(box: nested, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = ArrayBox()
            box.set(key.stringValue, .array(nested))
            return Unkeyed(box: nested, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder { Super(box: box, key: "super", codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { Super(box: box, key: key.stringValue, codingPath: codingPath + [key]) }
    }

    /// `superEncoder`: an encoder whose value is stored under `key` as soon as it is made.
    fileprivate final class Super: Encoder {
        let box: ObjectBox
        let key: String
        var codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        private let inner: TreeEncoder

        init(box: ObjectBox, key: String, codingPath: [any CodingKey]) {
            self.box = box
            self.key = key
            self.codingPath = codingPath
            inner = TreeEncoder(codingPath: codingPath)
        }

        func container<K: CodingKey>(keyedBy type: K.Type) -> KeyedEncodingContainer<K> {
            defer { box.set(key, inner.root) }
            return inner.container(keyedBy: type)
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            defer { box.set(key, inner.root) }
            return inner.unkeyedContainer()
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { SuperSingle(owner: self) }

        fileprivate func store(_ node: Node) { box.set(key, node) }
    }

    fileprivate struct SuperSingle: SingleValueEncodingContainer {
        let owner: Super
        var codingPath: [any CodingKey] { owner.codingPath }

        mutating func encodeNil() throws { owner.store(.null) }
        mutating func encode(_ value: Bool) throws { owner.store(.bool(value)) }
        mutating func encode(_ value: String) throws { owner.store(.string(value)) }
        mutating func encode(_ value: Int) throws { owner.store(.number(String(value))) }
        mutating func encode(_ value: Double) throws { throw Unsupported(description: "a floating-point number") }
        mutating func encode<T: Encodable>(_ value: T) throws { owner.store(try SortedJSON.node(value, codingPath: codingPath)) }
    }

    fileprivate struct Unkeyed: UnkeyedEncodingContainer {
        let box: ArrayBox
        var codingPath: [any CodingKey]
        var count: Int { box.items.count }

        mutating func encodeNil() throws { box.items.append(.null) }
        mutating func encode(_ value: Bool) throws { box.items.append(.bool(value)) }
        mutating func encode(_ value: String) throws { box.items.append(.string(value)) }
        mutating func encode(_ value: Int) throws { box.items.append(.number(String(value))) }
        mutating func encode(_ value: Int64) throws { box.items.append(.number(String(value))) }
        mutating func encode(_ value: Double) throws { throw Unsupported(description: "a floating-point number") }
        mutating func encode<T: Encodable>(_ value: T) throws { box.items.append(try SortedJSON.node(value, codingPath: codingPath)) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let nested = ObjectBox()
            box.items.append(.object(nested))
            return KeyedEncodingContainer(Keyed<NestedKey>(box: nested, codingPath: codingPath))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = ArrayBox()
            box.items.append(.array(nested))
            return Unkeyed(box: nested, codingPath: codingPath)
        }

        mutating func superEncoder() -> any Encoder {
            let encoder = TreeEncoder(codingPath: codingPath)
            let nested = ObjectBox()
            encoder.root = .object(nested)
            box.items.append(.object(nested))
            return encoder
        }
    }

    fileprivate struct Single: SingleValueEncodingContainer {
        let encoder: TreeEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() throws { encoder.root = .null }
        mutating func encode(_ value: Bool) throws { encoder.root = .bool(value) }
        mutating func encode(_ value: String) throws { encoder.root = .string(value) }
        mutating func encode(_ value: Int) throws { encoder.root = .number(String(value)) }
        mutating func encode(_ value: Int64) throws { encoder.root = .number(String(value)) }
        mutating func encode(_ value: Double) throws { throw Unsupported(description: "a floating-point number") }
        mutating func encode<T: Encodable>(_ value: T) throws { encoder.root = try SortedJSON.node(value, codingPath: codingPath) }
    }
}
