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
