/// An ordered X.509 name such as `["UID": "pass.com.example", "CN": "Pass Type ID: …", "OU": "ABCDE12345"]`.
///
/// Attribute names are OpenSSL short names (`CN`, `O`, `OU`, `C`, `UID`, …).
public struct DistinguishedName: Sendable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One attribute of the name.
    public struct Attribute: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    /// The attributes in certificate order.
    public var attributes: [Attribute]

    public init(_ attributes: [Attribute]) { self.attributes = attributes }

    public init(dictionaryLiteral elements: (String, String)...) {
        attributes = elements.map { Attribute(name: $0.0, value: $0.1) }
    }

    /// The first value of an attribute, if present.
    public subscript(name: String) -> String? { attributes.first { $0.name == name }?.value }

    public var description: String { attributes.map { "\($0.name)=\($0.value)" }.joined(separator: ", ") }
}
