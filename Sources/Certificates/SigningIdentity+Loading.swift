public import Foundation

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
        let p12: PKCS12Archive
        do throws(OpenSSLError) {
            p12 = try PKCS12Archive(der: bytes)
        } catch {
            throw CertificateError(.unreadable, "\(path) is not a PKCS#12 (.p12) file", path: path, openSSL: error)
        }

        // An export without password may be MAC'd with "" or with no password at all.
        let candidates: [String?] = password.map { [$0] } ?? ["", nil]
        guard let chosen = candidates.first(where: { p12.macMatches($0) }) else {
            let problem = password == nil ? "needs a password (set PASS_P12_PASSWORD)" : "could not be opened: wrong password"
            throw CertificateError(.badPassword, "\(path) \(problem)", path: path, openSSLErrors: OpenSSLErrorQueue.drain())
        }

        let (certificate, key, extras): (X509Certificate, PrivateKey, [X509Certificate])
        do throws(OpenSSLError) {
            (certificate, key, extras) = try p12.contents(password: chosen)
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
}

/// Calls `body` with a C string, or with nil when there is no string.
func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
