// Detached CMS (PKCS#7) SignedData: made for pass manifests, checked by the phone fleet the way
// Wallet checks them.
//
// Threading: a CMSSignature is used by the thread that made it; signing takes its own references
// to the key and certificates, which may be shared (see X509Certificate and PrivateKey).

import COpenSSL
package import Foundation

/// An owned `CMS_ContentInfo`; deinit frees it.
package final class CMSSignature {
    private let pointer: OpaquePointer

    private init(owning pointer: OpaquePointer) { self.pointer = pointer }

    deinit { CMS_ContentInfo_free(pointer) }

    /// Parses a DER signature.
    package convenience init(der: [UInt8]) throws(OpenSSLError) {
        OpenSSLErrorQueue.clear()
        let bio = try MemoryBIO(bytes: der)
        self.init(owning: try check(d2i_CMS_bio(bio.pointer, nil), "read a CMS signature"))
    }

    /// The DER of a detached signature over `content`: `digest`, signingTime = `signingTime`,
    /// `signer` and `extraCertificates` embedded, binary content (no MIME canonicalisation), no
    /// S/MIME capabilities attribute.
    package static func detached(
        over content: [UInt8], signingTime: Date,
        signer: X509Certificate, key: PrivateKey, digest: Digest, extraCertificates: [X509Certificate]
    ) throws(OpenSSLError) -> [UInt8] {
        let flags = UInt32(CMS_DETACHED | CMS_BINARY | CMS_NOSMIMECAP)
        let cms = CMSSignature(owning: try check(CMS_sign(nil, nil, nil, nil, flags | UInt32(CMS_PARTIAL)), "start the CMS structure"))
        let info = try check(
            CMS_add1_signer(cms.pointer, signer.pointer, key.pointer, digest.pointer, flags | UInt32(CMS_PARTIAL)), "add the signer"
        )
        let time = try check(ASN1_TIME_set(nil, time_t(signingTime.timeIntervalSince1970.rounded(.down))), "encode the signing time")
        defer { ASN1_TIME_free(time) }
        try check(CMS_signed_add1_attr_by_NID(info, NID_pkcs9_signingTime, time.pointee.type, time, -1) == 1, "add the signing time")
        for certificate in extraCertificates {
            try check(CMS_add1_cert(cms.pointer, certificate.pointer) == 1, "embed an extra certificate")
        }
        let data = try MemoryBIO(bytes: content)
        try check(CMS_final(cms.pointer, data.pointer, nil, flags) == 1, "finish the CMS signature")
        return try cms.der()
    }

    /// The DER encoding.
    package func der() throws(OpenSSLError) -> [UInt8] {
        try derEncoding(of: "the signature") { i2d_CMS_ContentInfo(pointer, $0) }
    }

    /// Passes when this is a valid signature over `content` (binary, detached) by a certificate
    /// that chains to `store`; throws with OpenSSL's reasons otherwise.
    package func verify(detachedContent content: [UInt8], trusting store: CertificateStore) throws(OpenSSLError) {
        OpenSSLErrorQueue.clear()
        let data = try MemoryBIO(bytes: content)
        try check(CMS_verify(pointer, nil, store.pointer, data.pointer, nil, UInt32(CMS_BINARY)) == 1, "verify the signature")
    }
}
