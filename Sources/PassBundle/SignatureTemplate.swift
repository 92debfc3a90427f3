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
// Threading: the DER and the offsets are immutable. A signing context (EVP_PKEY_CTX) may serve one
// thread at a time, so initialised contexts wait in a pool behind a Mutex; each signature borrows
// one, which costs a lock instead of an algorithm fetch, and a thread that finds the pool empty
// makes another.

import Certificates
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
    private let key: PrivateKey
    private let digest: Digest
    private let idle = Mutex<[RSASigningContext]>([])

    /// The time the probe is signed at: any instant that encodes as UTCTime works.
    static let probeTime = Date(timeIntervalSince1970: 1_577_880_000)
    /// Content whose signature serves as the template.
    static let probeContent = Array(#"{"pass.json":"0000000000000000000000000000000000000000"}"#.utf8)

    /// Locates the fields of `probe` (the CMS signature of `probeContent` at `probeTime` made with
    /// `key`) and checks that re-signing reproduces it; nil when either fails.
    init?(probe: [UInt8], key: PrivateKey, digest: Digest) {
        guard let fields = Self.locateFields(in: probe), fields.messageDigest.count == digest.size else { return nil }
        der = probe
        signedAttributes = fields.signedAttributes
        signingTime = fields.signingTime
        messageDigest = fields.messageDigest
        signature = fields.signature
        // The template holds its own references: it may outlive the signer that made it.
        self.key = key
        self.digest = digest
        guard (try? sign(Self.probeContent, signingTime: Self.probeTime)) == probe else { return nil }
    }

    /// The signature of `content` at `signingTime`, or nil when the time has no UTCTime form
    /// (before 1950 or from 2050 on): the caller then builds the CMS structure in full.
    func sign(_ content: [UInt8], signingTime time: Date) throws(PassBundleError) -> [UInt8]? {
        guard let utcTime = Self.utcTime(time) else { return nil }
        do throws(OpenSSLError) {
            var output = der
            output.replaceSubrange(signingTime, with: utcTime)
            output.replaceSubrange(messageDigest, with: try digest.hash(content))
            // The signature covers the attributes DER-encoded as a SET (tag 0x31), not as the
            // [0] IMPLICIT field they are stored in (RFC 5652 §5.4).
            var attributes = Array(output[signedAttributes])
            attributes[0] = 0x31
            let attributesHash = try digest.hash(attributes)

            let context = try borrowContext()
            defer { idle.withLock { $0.append(context) } }
            try output.withUnsafeMutableBufferPointer { (buffer) throws(OpenSSLError) in
                let field = UnsafeMutableBufferPointer(rebasing: buffer[signature])
                try context.sign(digest: attributesHash, into: UnsafeMutableRawBufferPointer(field))
            }
            return output
        } catch {
            throw PassBundleError(signing: error)
        }
    }

    private func borrowContext() throws(OpenSSLError) -> RSASigningContext {
        if let context = idle.withLock({ $0.popLast() }) { return context }
        return try RSASigningContext(key: key, digest: digest)
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
