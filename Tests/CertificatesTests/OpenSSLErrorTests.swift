import ByteEncoding
import COpenSSL
import PassServerTesting
import Testing

@testable import Certificates

@Suite("OpenSSL failures become OpenSSLError through check, with the queue's reasons", .offCooperativePool)
struct OpenSSLErrorTests {
    @Test("a failed call throws the operation and OpenSSL's queued reasons, and leaves the queue empty")
    func failedCallCarriesTheQueue() throws {
        OpenSSLErrorQueue.clear()
        let garbage: [UInt8] = [0x30, 0x03, 0x02, 0x01]
        let parsed: OpaquePointer? = garbage.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        let error = try #require(throws: OpenSSLError.self) { try check(parsed, "parse four bytes as a certificate") }
        #expect(error.operation == "parse four bytes as a certificate")
        #expect(!error.queue.isEmpty)
        #expect(error.queue.allSatisfy { $0.hasPrefix("error:") }, "\(error.queue)")
        #expect(error.queue.contains { $0.contains("asn1") || $0.contains("ASN1") }, "\(error.queue)")
        #expect(error.description == "cannot parse four bytes as a certificate (\(error.queue.joined(separator: "; ")))")
        #expect(ERR_peek_error() == 0, "check drained the queue")
    }

    @Test("a false success test throws too; a true one does not")
    func booleanForm() throws {
        OpenSSLErrorQueue.clear()
        #expect(throws: Never.self) { try check(true, "nothing") }
        let fetched = EVP_MD_fetch(nil, "NO-SUCH-DIGEST", nil)
        let error = try #require(throws: OpenSSLError.self) { try check(fetched != nil, "fetch NO-SUCH-DIGEST") }
        #expect(error.queue.contains { $0.contains("unsupported") }, "\(error.queue)")
        #expect(ERR_peek_error() == 0)
        // Without queued reasons the error still names what failed.
        let bare = try #require(throws: OpenSSLError.self) { try check(false, "do the impossible") }
        #expect(bare.queue.isEmpty)
        #expect(bare.description == "cannot do the impossible")
    }

    @Test("a digest OpenSSL cannot provide throws instead of hashing to nothing")
    func unavailableDigestThrows() throws {
        OpenSSLErrorQueue.clear()
        // No FIPS provider is loaded, so no SHA-256 satisfies the query.
        let error = try #require(throws: OpenSSLError.self) { try Digest(name: "SHA256", properties: "fips=yes") }
        #expect(error.operation == "fetch the SHA256 digest")
        #expect(!error.queue.isEmpty)
        #expect(ERR_peek_error() == 0)
        // MD4 lives only in the legacy provider.
        #expect(throws: OpenSSLError.self) { try Digest(name: "MD4", properties: "provider=default") }
    }

    @Test("SHA-1, SHA-256 and HMAC-SHA256 give the published answers, as lowercase hex")
    func knownAnswers() throws {
        #expect(Hex.encode(try Digest.sha1().hash(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Hex.encode(try Digest.sha256().hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        // RFC 4231, test case 2.
        let mac = try Digest.sha256().authenticationCode(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Hex.encode(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(try Digest.sha1().size == 20 && Digest.sha256().size == 32)
        #expect(Hex.encode([0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
    }

    @Test("constant-time comparison and random bytes")
    func comparisonAndRandomness() {
        #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equal([], []))
        let first = SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(first != SecureRandom.bytes(32))
    }

    @Test("a certificate stack holds its own references: certificates read from it outlive it")
    func stackOwnership() throws {
        let root = try CertificateAuthority.makeRoot(subject: ["CN": "Stack Test Root"])
        let certificate = try X509Certificate(der: root.certificate.certificateDER)
        var read: [X509Certificate] = []
        do {
            let stack = try CertificateStack([certificate, certificate])
            read = try stack.certificates()
        }
        #expect(read.count == 2)
        #expect(try read.allSatisfy { try $0.der() == root.certificate.certificateDER })
        #expect(read[0].subject.contains("Stack Test Root"))
    }
}
