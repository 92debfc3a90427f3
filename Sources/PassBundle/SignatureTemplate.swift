// A CMS signature that OpenSSL encoded once, re-signed per bundle by patching its variable fields.
//
// For one signer, every pass signature has the same DER except three fixed-length fields: the
// signingTime (a 13-byte UTCTime until 2049), the messageDigest (32 bytes of SHA-256) and the RSA
// signature (the modulus size; PKCS#1 v1.5 output is always exactly that long). So the signer
// lets OpenSSL's CMS code build a complete signature once, locates those fields by walking the
// DER, and afterwards only hashes manifest.json, hashes the patched signed attributes and makes one
// RSA signature. That skips rebuilding and re-encoding the whole CMS structure (signer identifier,
// both certificates, algorithm fetches) for every pass, which cost as much as a fifth of the RSA
// operation itself.
//
// It is only used after it proves itself: at creation it re-signs OpenSSL's probe content and must
// reproduce OpenSSL's CMS output byte for byte (PKCS#1 v1.5 is deterministic). A key for which that
// fails (not RSA, for instance) gets no template and every signature goes through CMS_sign.
//
// Threading: the DER and the offsets are immutable. An EVP_PKEY_CTX may serve one thread at a
// time, so initialised contexts wait in a pool behind a Mutex; each signature borrows one, which
// costs a lock instead of an algorithm fetch, and a thread that finds the pool empty makes another.

import Certificates
import COpenSSL
import Foundation
import Synchronization

final class SignatureTemplate: Sendable {
    /// The DER of the probe signature.
    private let der: [UInt8]
    /// The signed attributes element ([0] IMPLICIT SET OF Attribute).
    private let signedAttributes: Range<Int>
    private let signingTime: Range<Int>
    private let messageDigest: Range<Int>
    private let signature: Range<Int>
    private let key: SendablePointer
    private let digest: SendablePointer
    private let idle = Mutex<[SendablePointer]>([])

    /// The time the probe is signed at: any instant that encodes as UTCTime works.
    static let probeTime = Date(timeIntervalSince1970: 1_577_880_000)
    /// Content whose signature serves as the template.
    static let probeContent = Array(#"{"pass.json":"0000000000000000000000000000000000000000"}"#.utf8)

    /// Locates the fields of `probe` (the CMS signature of `probeContent` at `probeTime` made with
    /// `key`) and checks that re-signing reproduces it; nil when either fails.
    init?(probe: [UInt8], key: OpaquePointer, digest: OpaquePointer) {
        guard let fields = Self.locateFields(in: probe) else { return nil }
        der = probe
        signedAttributes = fields.signedAttributes
        signingTime = fields.signingTime
        messageDigest = fields.messageDigest
        signature = fields.signature
        // Own references: the template may outlive the signer that made it.
        EVP_PKEY_up_ref(key)
        EVP_MD_up_ref(digest)
        self.key = SendablePointer(key)
        self.digest = SendablePointer(digest)
        guard (try? sign(Self.probeContent, signingTime: Self.probeTime)) == probe else { return nil }
    }

    deinit {
        for context in idle.withLock({ $0 }) { EVP_PKEY_CTX_free(context.pointer) }
        EVP_PKEY_free(key.pointer)
        EVP_MD_free(digest.pointer)
    }

    /// The signature of `content` at `signingTime`, or nil when the time has no UTCTime form
    /// (before 1950 or from 2050 on): the caller then builds the CMS structure in full.
    func sign(_ content: [UInt8], signingTime time: Date) throws(PassBundleError) -> [UInt8]? {
        guard let utcTime = Self.utcTime(time) else { return nil }
        var output = der
        try output.withUnsafeMutableBufferPointer { (buffer) throws(PassBundleError) in
            guard let base = buffer.baseAddress else { throw PassBundleError(.signingFailed, "empty signature template") }
            for (index, byte) in utcTime.enumerated() { base[signingTime.lowerBound + index] = byte }
            let hashed = content.withUnsafeBytes { raw in
                EVP_Digest(raw.baseAddress, raw.count, base + messageDigest.lowerBound, nil, digest.pointer, nil)
            }
            guard hashed == 1 else { throw failure("cannot hash the content") }

            // The signature covers the attributes DER-encoded as a SET (tag 0x31), not as the
            // [0] IMPLICIT field they are stored in (RFC 5652 §5.4).
            let original = base[signedAttributes.lowerBound]
            base[signedAttributes.lowerBound] = 0x31
            var attributesHash = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var hashLength: UInt32 = 0
            let attributesHashed = EVP_Digest(base + signedAttributes.lowerBound, signedAttributes.count, &attributesHash, &hashLength, digest.pointer, nil)
            base[signedAttributes.lowerBound] = original
            guard attributesHashed == 1 else { throw failure("cannot hash the signed attributes") }

            let context = try borrowContext()
            defer { idle.withLock { $0.append(context) } }
            var length = signature.count
            guard EVP_PKEY_sign(context.pointer, base + signature.lowerBound, &length, attributesHash, Int(hashLength)) == 1,
                  length == signature.count else {
                throw failure("RSA signing failed")
            }
        }
        return output
    }

    private func borrowContext() throws(PassBundleError) -> SendablePointer {
        if let context = idle.withLock({ $0.popLast() }) { return context }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { throw failure("cannot create a signing context") }
        guard EVP_PKEY_sign_init(context) == 1,
              EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
              EVP_PKEY_CTX_set_signature_md(context, digest.pointer) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw failure("cannot set up RSA PKCS#1 signing with SHA-256")
        }
        return SendablePointer(context)
    }

    private func failure(_ message: String) -> PassBundleError {
        PassBundleError(.signingFailed, OpenSSLErrorQueue.describe(message))
    }

    /// `YYMMDDHHMMSSZ` in UTC, or nil outside 1950...2049 where DER requires GeneralizedTime.
    static func utcTime(_ date: Date) -> [UInt8]? {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return nil }
        let year = Int(parts.tm_year) + 1900
        guard (1950...2049).contains(year) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(13)
        for value in [year % 100, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)] {
            out.append(UInt8(ascii: "0") + UInt8(value / 10))
            out.append(UInt8(ascii: "0") + UInt8(value % 10))
        }
        out.append(UInt8(ascii: "Z"))
        return out
    }

    private struct Fields {
        var signedAttributes: Range<Int>
        var signingTime: Range<Int>
        var messageDigest: Range<Int>
        var signature: Range<Int>
    }

    private static let signingTimeOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x05]
    private static let messageDigestOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x04]

    /// ContentInfo → [0] → SignedData → signerInfos (last SET) → the only SignerInfo → its
    /// signedAttrs ([0]) and signature (the final OCTET STRING, RFC 5652 §5.3).
    private static func locateFields(in der: [UInt8]) -> Fields? {
        guard let contentInfo = DER.element(in: der, at: 0, limit: der.count), contentInfo.tag == 0x30,
              contentInfo.range == 0..<der.count,
              let explicit = DER.children(of: contentInfo, in: der)?.last, explicit.tag == 0xA0,
              let signedData = DER.children(of: explicit, in: der)?.first, signedData.tag == 0x30,
              let signerInfos = DER.children(of: signedData, in: der)?.last, signerInfos.tag == 0x31,
              let signerInfoList = DER.children(of: signerInfos, in: der), signerInfoList.count == 1,
              let signerInfo = DER.children(of: signerInfoList[0], in: der),
              let attributes = signerInfo.first(where: { $0.tag == 0xA0 }),
              let signatureElement = signerInfo.last, signatureElement.tag == 0x04,
              let attributeList = DER.children(of: attributes, in: der) else { return nil }
        var signingTime: Range<Int>?
        var messageDigest: Range<Int>?
        for attribute in attributeList {
            guard let parts = DER.children(of: attribute, in: der), parts.count == 2,
                  let values = DER.children(of: parts[1], in: der), values.count == 1 else { return nil }
            let oid = Array(der[parts[0].range])
            if oid == signingTimeOID, values[0].tag == 0x17, values[0].contents.count == 13 {
                signingTime = values[0].contents
            } else if oid == messageDigestOID, values[0].tag == 0x04, values[0].contents.count == 32 {
                messageDigest = values[0].contents
            }
        }
        guard let signingTime, let messageDigest else { return nil }
        return Fields(signedAttributes: attributes.range, signingTime: signingTime, messageDigest: messageDigest, signature: signatureElement.contents)
    }
}

/// An OpenSSL handle passed between threads under a lock or in immutable storage.
struct SendablePointer: @unchecked Sendable {
    // Safe because every holder either never mutates the object (keys, digests) or hands it to
    // one thread at a time through a Mutex (signing contexts).
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
