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
        guard let bio = MemoryBIO(bytes: bytes), let p12 = d2i_PKCS12_bio(bio.bio, nil) else {
            throw CertificateError(.unreadable, "\(path) is not a PKCS#12 (.p12) file", path: path, openSSLErrors: OpenSSLErrorQueue.drain())
        }
        defer { PKCS12_free(p12) }

        // An export without password may be MAC'd with "" or with no password at all.
        let candidates: [String?] = password.map { [$0] } ?? ["", nil]
        guard let chosen = candidates.first(where: { macMatches(p12, $0) }) else {
            let problem = password == nil ? "needs a password (set PASS_P12_PASSWORD)" : "could not be opened: wrong password"
            throw CertificateError(.badPassword, "\(path) \(problem)", path: path, openSSLErrors: OpenSSLErrorQueue.drain())
        }

        var keyPointer: OpaquePointer?
        var certificatePointer: OpaquePointer?
        var extra: OpaquePointer?
        let parsed = withOptionalCString(chosen) { PKCS12_parse(p12, $0, &keyPointer, &certificatePointer, &extra) }
        let key = keyPointer.map(PrivateKey.init(owning:))
        let certificate = certificatePointer.map(X509Certificate.init(owning:))
        var extras: [X509Certificate] = []
        if let extra {
            for index in 0..<shim_sk_X509_num(extra) {
                if let item = shim_sk_X509_value(extra, index), X509_up_ref(item) == 1 { extras.append(X509Certificate(owning: item)) }
            }
            shim_sk_X509_pop_free(extra)
        }
        guard parsed == 1, let key, let certificate else {
            let errors = OpenSSLErrorQueue.drain()
            let hint = errors.contains { $0.contains("unsupported") } ? " (legacy cipher: OpenSSL's legacy provider is missing)" : ""
            throw CertificateError(.unreadable, "\(path) holds no certificate and key\(hint)", path: path, openSSLErrors: errors)
        }

        let intermediate: X509Certificate?
        if let wwdr {
            intermediate = try X509Certificate(pemOrDER: readFileBytes(wwdr, what: "WWDR certificate"), path: wwdr, what: "WWDR certificate file")
        } else {
            intermediate = extras.first { certificate.isIssued(by: $0) }
        }
        return try SigningIdentity(certificate: certificate, key: key, intermediate: intermediate, now: now, certificatePath: path, intermediatePath: wwdr ?? path)
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
