public import Foundation
import COpenSSL

extension SigningIdentity {
    /// Loads a PEM (or DER) certificate and private key, the key optionally encrypted with
    /// `password`, plus the WWDR intermediate from a PEM or DER file. Without `wwdr`, a chain
    /// file (leaf followed by the WWDR certificate) supplies the intermediate.
    public static func load(
        pem certificatePath: String,
        privateKey keyPath: String,
        password: String?,
        wwdr: String?,
        now: Date = Date()
    ) throws(CertificateError) -> SigningIdentity {
        let chain = try X509Certificate.all(pemOrDER: readFileBytes(certificatePath, what: "certificate"), path: certificatePath, what: "certificate file")
        let certificate = chain[0]
        let key = try PrivateKey(pemOrDER: readFileBytes(keyPath, what: "private key"), password: password, path: keyPath)
        let intermediate: X509Certificate?
        if let wwdr {
            intermediate = try X509Certificate(pemOrDER: readFileBytes(wwdr, what: "WWDR certificate"), path: wwdr, what: "WWDR certificate file")
        } else {
            intermediate = chain.dropFirst().first { certificate.isIssued(by: $0) }
        }
        return try SigningIdentity(certificate: certificate, key: key, intermediate: intermediate, now: now, certificatePath: certificatePath, intermediatePath: wwdr)
    }

    /// Loads a PKCS#12 (`.p12`) file, including exports with legacy ciphers (RC2/3DES).
    ///
    /// The WWDR intermediate comes from `wwdr` if given, otherwise from the `.p12`'s extra
    /// certificates when one of them issued the leaf.
    public static func load(p12 path: String, password: String?, wwdr: String?, now: Date = Date()) throws(CertificateError) -> SigningIdentity {
        let bytes = try readFileBytes(path, what: ".p12")
        OpenSSLProviders.ensureLoaded()
        OpenSSLErrorQueue.clear()
        let p12: OpaquePointer
        do throws(OpenSSLError) {
            let bio = try MemoryBIO(bytes: bytes)
            p12 = try check(d2i_PKCS12_bio(bio.pointer, nil), "read a PKCS#12 structure")
        } catch {
            throw CertificateError(.unreadable, "\(path) is not a PKCS#12 (.p12) file", path: path, openSSL: error)
        }
        defer { PKCS12_free(p12) }

        // An export without password may be MAC'd with "" or with no password at all.
        let candidates: [String?] = password.map { [$0] } ?? ["", nil]
        guard let chosen = candidates.first(where: { macMatches(p12, $0) }) else {
            let problem = password == nil ? "needs a password (set PASS_P12_PASSWORD)" : "could not be opened: wrong password"
            throw CertificateError(.badPassword, "\(path) \(problem)", path: path, openSSLErrors: OpenSSLErrorQueue.drain())
        }

        let (certificate, key, extras): (X509Certificate, PrivateKey, [X509Certificate])
        do throws(OpenSSLError) {
            (certificate, key, extras) = try parse(p12, password: chosen)
        } catch {
            let hint = error.queue.contains { $0.contains("unsupported") } ? " (legacy cipher: OpenSSL's legacy provider is missing)" : ""
            throw CertificateError(.unreadable, "\(path) holds no certificate and key\(hint)", path: path, openSSL: error)
        }

        let intermediate: X509Certificate?
        if let wwdr {
            intermediate = try X509Certificate(pemOrDER: readFileBytes(wwdr, what: "WWDR certificate"), path: wwdr, what: "WWDR certificate file")
        } else {
            intermediate = extras.first { certificate.isIssued(by: $0) }
        }
        return try SigningIdentity(certificate: certificate, key: key, intermediate: intermediate, now: now, certificatePath: path, intermediatePath: wwdr ?? path)
    }

    /// The leaf, its key and the extra certificates of an opened PKCS#12 structure.
    private static func parse(_ p12: OpaquePointer, password: String?) throws(OpenSSLError) -> (X509Certificate, PrivateKey, [X509Certificate]) {
        var keyPointer: OpaquePointer?
        var certificatePointer: OpaquePointer?
        var extraPointer: OpaquePointer?
        let parsed = withOptionalCString(password) { PKCS12_parse(p12, $0, &keyPointer, &certificatePointer, &extraPointer) }
        // Take ownership of whatever PKCS12_parse handed out before deciding whether it succeeded.
        let key = keyPointer.map(PrivateKey.init(owning:))
        let certificate = certificatePointer.map(X509Certificate.init(owning:))
        let extras = try extraPointer.map(CertificateStack.init(owning:))?.certificates() ?? []
        try check(parsed == 1, "parse the PKCS#12 structure")
        return (try check(certificate, "find the certificate"), try check(key, "find the private key"), extras)
    }

    private static func macMatches(_ p12: OpaquePointer, _ password: String?) -> Bool {
        let ok = withOptionalCString(password) { PKCS12_verify_mac(p12, $0, -1) } == 1
        OpenSSLErrorQueue.clear()
        return ok
    }
}

/// Calls `body` with a C string, or with nil when there is no string.
func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
