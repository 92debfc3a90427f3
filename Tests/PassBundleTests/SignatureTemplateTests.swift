import Foundation
@testable import PassBundle
import PassServerTesting
import Testing

@Suite("Re-signing a CMS template gives OpenSSL's own CMS signature", .offCooperativePool, .timeLimit(.minutes(3)))
struct SignatureTemplateTests {
    @Test("the patched template equals CMS_sign byte for byte, for any content and signing time", arguments: [
        (Array("{}".utf8), 0.0),
        (Array(#"{"pass.json":"da39a3ee5e6b4b0d3255bfef95601890afd80709"}"#.utf8), 1_772_600_767.0),
        ([UInt8](repeating: 0x41, count: 5_000), 2_524_607_999.0), // 2049-12-31T23:59:59Z, the last UTCTime second
        ([UInt8](), -631_152_000.0), // 1950-01-01T00:00:00Z, the first
    ])
    func matchesCMS(content: [UInt8], seconds: Double) throws {
        let certificates = try Fixture.certificates()
        let signer = try PassSigner(identity: certificates.identity)
        let template = try #require(signer.template, "an RSA identity must get the fast path")
        let time = Date(timeIntervalSince1970: seconds)
        let fast = try #require(try template.sign(content, signingTime: time))
        #expect(fast == (try signer.signWithCMS(content, signingTime: time)))
        #expect(try signer.sign(content, signingTime: time) == fast)
    }

    @Test("a signing time without a UTCTime form (2050 on) takes the full CMS path and still verifies")
    func generalizedTimeFallsBack() throws {
        let certificates = try Fixture.certificates()
        let signer = try PassSigner(identity: certificates.identity)
        let time = Date(timeIntervalSince1970: 2_524_608_000) // 2050-01-01T00:00:00Z
        #expect(try signer.template?.sign([1, 2, 3], signingTime: time) == nil)

        let bundle = try PassBundle.build(template: Fixture.template(), data: Fixture.ticket(), signer: signer, signingTime: time)
        let unpacked = try UnpackedBundle(bundle)
        let verification = try unpacked.verifySignature(root: certificates.rootCertificate)
        #expect(verification.status == 0, "openssl smime -verify: \(verification.error)")
        let printed = try run("openssl", ["cms", "-cmsout", "-print", "-inform", "DER", "-in", unpacked.directory + "/signature"])
        #expect(printed.output.contains("GENERALIZEDTIME"), "\(printed.output)")
        #expect(printed.output.contains("Jan  1 00:00:00 2050"))
    }

    @Test("UTCTime text is YYMMDDHHMMSSZ in UTC, and absent outside 1950-2049")
    func utcTimeText() {
        func text(_ seconds: Double) -> String? {
            SignatureTemplate.utcTime(Date(timeIntervalSince1970: seconds)).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(text(1_772_600_767.9) == "260304050607Z")
        #expect(text(0) == "700101000000Z")
        #expect(text(-631_152_000) == "500101000000Z")
        #expect(text(-631_152_001) == nil)
        #expect(text(2_524_608_000) == nil)
    }

    @Test("a probe that is not a well-formed SignedData, or that does not reproduce, gives no template")
    func rejectsBadProbes() throws {
        let certificates = try Fixture.certificates()
        let signer = try PassSigner(identity: certificates.identity)
        let probe = try signer.signWithCMS(SignatureTemplate.probeContent, signingTime: SignatureTemplate.probeTime)
        let key = signer.key
        let digest = signer.digest
        #expect(SignatureTemplate(probe: probe, key: key, digest: digest) != nil)

        #expect(SignatureTemplate(probe: Array(probe.dropLast()), key: key, digest: digest) == nil)
        #expect(SignatureTemplate(probe: Array(probe.prefix(40)), key: key, digest: digest) == nil)
        #expect(SignatureTemplate(probe: [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF], key: key, digest: digest) == nil)
        #expect(SignatureTemplate(probe: [], key: key, digest: digest) == nil)
        // Well-formed but signed at another time: re-signing cannot reproduce it.
        let other = try signer.signWithCMS(SignatureTemplate.probeContent, signingTime: Fixture.signingTime)
        #expect(SignatureTemplate(probe: other, key: key, digest: digest) == nil)
    }

    @Test("DER headers: short and long lengths, and overruns rejected")
    func derHeaders() throws {
        let short: [UInt8] = [0x04, 0x02, 0xAA, 0xBB]
        #expect(DER.element(in: short, at: 0, limit: short.count) == DER.Element(tag: 0x04, start: 0, contents: 2..<4))
        let long: [UInt8] = [0x30, 0x81, 0x80] + [UInt8](repeating: 0, count: 0x80)
        #expect(DER.element(in: long, at: 0, limit: long.count)?.contents == 3..<131)
        #expect(DER.element(in: Array(long.dropLast()), at: 0, limit: long.count - 1) == nil)
        #expect(DER.element(in: [0x1F, 0x01, 0x00], at: 0, limit: 3) == nil) // multi-byte tag
        #expect(DER.element(in: [0x30, 0x80, 0x00, 0x00], at: 0, limit: 4) == nil) // indefinite length
        let parent = try #require(DER.element(in: [0x30, 0x05, 0x02, 0x01, 0x07, 0x05, 0x00], at: 0, limit: 7))
        #expect(DER.children(of: parent, in: [0x30, 0x05, 0x02, 0x01, 0x07, 0x05, 0x00])?.map(\.tag) == [0x02, 0x05])
        let broken = try #require(DER.element(in: [0x30, 0x03, 0x02, 0x05, 0x07], at: 0, limit: 5))
        #expect(DER.children(of: broken, in: [0x30, 0x03, 0x02, 0x05, 0x07]) == nil)
    }

    @Test("concurrent signing through the context pool gives the CMS result on every thread")
    func concurrentSigning() throws {
        let certificates = try Fixture.certificates()
        let signer = try PassSigner(identity: certificates.identity)
        let results = ResultBox()
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let content = Array("manifest \(index)".utf8)
            results.append(Result { try signer.sign(content, signingTime: Fixture.signingTime) == signer.signWithCMS(content, signingTime: Fixture.signingTime) ? [1] : [0] })
        }
        #expect(results.values.count == 16)
        #expect(results.values.allSatisfy { (try? $0.get()) == [1] })
    }
}
