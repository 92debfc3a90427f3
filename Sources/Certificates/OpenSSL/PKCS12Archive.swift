import COpenSSL

/// An owned `PKCS12` structure (the contents of a `.p12` file); deinit frees it.
final class PKCS12Archive {
    private let pointer: OpaquePointer

    private init(owning pointer: OpaquePointer) { self.pointer = pointer }

    deinit { PKCS12_free(pointer) }

    /// Parses the DER bytes of a `.p12` file.
    convenience init(der bytes: [UInt8]) throws(OpenSSLError) {
        let bio = try MemoryBIO(bytes: bytes)
        self.init(owning: try check(d2i_PKCS12_bio(bio.pointer, nil), "read a PKCS#12 structure"))
    }

    /// A new structure holding `certificate`, its `key` and `chain`, protected by `password`;
    /// NIDs of 0 choose OpenSSL's defaults.
    convenience init(
        password: String, friendlyName: String, key: PrivateKey, certificate: X509Certificate, chain: CertificateStack,
        keyNID: Int32, certificateNID: Int32
    ) throws(OpenSSLError) {
        let created = PKCS12_create(password, friendlyName, key.pointer, certificate.pointer, chain.pointer, keyNID, certificateNID, 0, 0, 0)
        self.init(owning: try check(created, "create the PKCS#12 file"))
    }

    /// The DER encoding (a `.p12` file's bytes).
    func der() throws(OpenSSLError) -> [UInt8] {
        let bio = try MemoryBIO()
        try check(i2d_PKCS12_bio(bio.pointer, pointer) == 1, "encode the PKCS#12 file")
        return bio.contents
    }

    /// True when `password` (nil: no password at all) opens the structure's MAC.
    func macMatches(_ password: String?) -> Bool {
        let ok = withOptionalCString(password) { PKCS12_verify_mac(pointer, $0, -1) } == 1
        OpenSSLErrorQueue.clear()
        return ok
    }

    /// The leaf certificate, its key and the extra certificates.
    func contents(password: String?) throws(OpenSSLError) -> (X509Certificate, PrivateKey, [X509Certificate]) {
        var keyPointer: OpaquePointer?
        var certificatePointer: OpaquePointer?
        var extraPointer: OpaquePointer?
        let parsed = withOptionalCString(password) { PKCS12_parse(pointer, $0, &keyPointer, &certificatePointer, &extraPointer) }
        // Take ownership of whatever PKCS12_parse handed out before deciding whether it succeeded.
        let key = keyPointer.map(PrivateKey.init(owning:))
        let certificate = certificatePointer.map(X509Certificate.init(owning:))
        let extras = try extraPointer.map(CertificateStack.init(owning:))?.certificates() ?? []
        try check(parsed == 1, "parse the PKCS#12 structure")
        return (try check(certificate, "find the certificate"), try check(key, "find the private key"), extras)
    }
}
