// An owned OpenSSL X509 with the few accessors certificate checks need.

import COpenSSL
import Foundation

/// One parsed certificate; frees its `X509` in deinit.
///
/// The one owner of certificates for pass signing and the APNs TLS client: they parse identity
/// bytes through it and hand `pointer` to OpenSSL calls that take references of their own.
package final class X509Certificate: @unchecked Sendable {
    // Safe because the X509 is never modified after init, and OpenSSL 3 makes concurrent
    // read-only use thread-safe (its reference count and lazily cached extensions are locked).

    /// The `X509 *`, valid while this object lives.
    package let pointer: OpaquePointer

    /// Takes ownership of an X509 the caller allocated or up-referenced.
    package init(owning pointer: OpaquePointer) { self.pointer = pointer }

    deinit { X509_free(pointer) }

    /// Parses DER bytes; `what` and `path` name the certificate in the error.
    package convenience init(der: [UInt8], path: String? = nil, what: String = "certificate") throws(CertificateError) {
        OpenSSLErrorQueue.clear()
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        do throws(OpenSSLError) {
            self.init(owning: try check(parsed, "parse the certificate"))
        } catch {
            throw CertificateError(.unreadable, "\(Self.naming(what, path)) is not a DER or PEM certificate", path: path, openSSL: error)
        }
    }

    /// Parses the first certificate of a PEM or DER file's contents.
    convenience init(pemOrDER bytes: [UInt8], path: String?, what: String) throws(CertificateError) {
        guard looksLikePEM(bytes) else {
            try self.init(der: bytes, path: path, what: what)
            return
        }
        OpenSSLErrorQueue.clear()
        do throws(OpenSSLError) {
            let bio = try MemoryBIO(bytes: bytes)
            self.init(owning: try check(PEM_read_bio_X509(bio.pointer, nil, nil, nil), "read a PEM certificate"))
        } catch {
            throw CertificateError(.unreadable, "\(Self.naming(what, path)) holds no PEM certificate", path: path, openSSL: error)
        }
    }

    /// Every certificate in a PEM file's contents (a chain file), or the one DER certificate.
    static func all(pemOrDER bytes: [UInt8], path: String, what: String) throws(CertificateError) -> [X509Certificate] {
        guard looksLikePEM(bytes) else { return [try X509Certificate(der: bytes, path: path, what: what)] }
        let bio: MemoryBIO
        do { bio = try MemoryBIO(bytes: bytes) } catch {
            throw CertificateError(.unreadable, "cannot buffer \(what) \(path)", path: path, openSSL: error)
        }
        var certificates: [X509Certificate] = []
        while let next = PEM_read_bio_X509(bio.pointer, nil, nil, nil) { certificates.append(X509Certificate(owning: next)) }
        // Reading stops with a "no start line" error at the end of the file: expected.
        OpenSSLErrorQueue.clear()
        guard !certificates.isEmpty else {
            throw CertificateError(.unreadable, "\(what) \(path) holds no PEM certificate", path: path)
        }
        return certificates
    }

    /// The DER encoding.
    package func der() throws(OpenSSLError) -> [UInt8] {
        try derEncoding(of: "the certificate") { i2d_X509(pointer, $0) }
    }

    /// The PEM encoding.
    func pem() throws(OpenSSLError) -> [UInt8] {
        let bio = try MemoryBIO()
        try check(PEM_write_bio_X509(bio.pointer, pointer) == 1, "write the certificate as PEM")
        return bio.contents
    }

    /// Computes OpenSSL's cached extension data now, so threads that later share the certificate
    /// (concurrent signers) only read it.
    package func cacheExtensions() {
        _ = X509_check_purpose(pointer, -1, 0)
        OpenSSLErrorQueue.clear()
    }

    var notBefore: Date? { ASN1Time.date(X509_get0_notBefore(pointer)) }
    var notAfter: Date? { ASN1Time.date(X509_get0_notAfter(pointer)) }

    /// The subject in RFC 2253 form (`UID=…,CN=…,OU=…`).
    var subject: String { Self.format(X509_get_subject_name(pointer)) }

    /// The first subject entry with the given NID (e.g. NID_userId), as UTF-8.
    func subjectEntry(nid: Int32) -> String? {
        guard let name = X509_get_subject_name(pointer) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, nid, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index) else { return nil }
        return Self.text(of: entry)
    }

    /// True when `issuer`'s subject and key issued this certificate.
    func isIssued(by issuer: X509Certificate) -> Bool {
        guard X509_check_issued(issuer.pointer, pointer) == X509_V_OK else { return false }
        guard let key = X509_get0_pubkey(issuer.pointer) else { return false }
        let verified = X509_verify(pointer, key) == 1
        OpenSSLErrorQueue.clear()
        return verified
    }

    /// `CN=…, OU=…` in certificate order, values as UTF-8 (OpenSSL's RFC 2253 flags are macros).
    static func format(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        var parts: [String] = []
        for index in 0..<X509_NAME_entry_count(name) {
            guard let entry = X509_NAME_get_entry(name, index), let value = text(of: entry) else { continue }
            let nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry))
            let label = OBJ_nid2sn(nid).map { String(cString: $0) } ?? "?"
            parts.append("\(label)=\(value)")
        }
        return parts.joined(separator: ", ")
    }

    /// `what` followed by the file, when there is one (`WWDR certificate file wwdr.pem`).
    private static func naming(_ what: String, _ path: String?) -> String {
        path.map { "\(what) \($0)" } ?? what
    }

    /// A name entry's value as UTF-8 text.
    private static func text(of entry: OpaquePointer) -> String? {
        guard let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&out, data)
        guard length >= 0, let out else { return nil }
        defer { shim_OPENSSL_free(out) }
        return String(decoding: UnsafeBufferPointer(start: out, count: Int(length)), as: UTF8.self)
    }
}
