/// An ordered X.509 name such as `["UID": "pass.com.example", "CN": "Pass Type ID: …", "OU": "ABCDE12345"]`.
///
/// Attribute names are OpenSSL short names (`CN`, `O`, `OU`, `C`, `UID`, …).
public struct DistinguishedName: Sendable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One attribute of the name.
    public struct Attribute: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
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

/// What an issued certificate may be used for; decides its extensions.
public enum CertificateUsage: Sendable {
    /// A CA (root or intermediate): basicConstraints CA:TRUE, keyCertSign, cRLSign.
    case certificateAuthority
    /// A TLS server: serverAuth, digitalSignature, keyEncipherment; SANs apply.
    case tlsServer
    /// A TLS client (like an APNs client certificate): clientAuth.
    case tlsClient
    /// A Pass Type ID certificate: digitalSignature with clientAuth and Apple's pass-signing OID,
    /// so the same pair also authenticates to APNs.
    case passSigning

    /// `openssl x509v3_config` extension lines (NID name, value).
    var extensions: [(String, String)] {
        switch self {
        case .certificateAuthority:
            [("basicConstraints", "critical,CA:TRUE"), ("keyUsage", "critical,keyCertSign,cRLSign,digitalSignature")]
        case .tlsServer:
            [("basicConstraints", "critical,CA:FALSE"), ("keyUsage", "critical,digitalSignature,keyEncipherment"), ("extendedKeyUsage", "serverAuth")]
        case .tlsClient:
            [("basicConstraints", "critical,CA:FALSE"), ("keyUsage", "critical,digitalSignature,keyEncipherment"), ("extendedKeyUsage", "clientAuth")]
        case .passSigning:
            [("basicConstraints", "critical,CA:FALSE"), ("keyUsage", "critical,digitalSignature"), ("extendedKeyUsage", "clientAuth,1.2.840.113635.100.4.14")]
        }
    }
}
