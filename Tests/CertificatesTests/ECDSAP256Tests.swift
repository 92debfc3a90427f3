import Foundation
import PassServerTesting
import Testing

@testable import Certificates

/// ECDSA P-256 with SHA-256: what we sign, OpenSSL's command line verifies (and the other way
/// round); another key, another message or a key of another kind verify nothing.
@Suite("ECDSA P-256", .offCooperativePool, .timeLimit(.minutes(1)))
struct ECDSAP256Tests {
    @Test("a signature verifies with its key only, and for its message only")
    func signAndVerify() throws {
        let key = try P256.generate()
        let other = try P256.generate()
        let message = Array("GooglePayPasses".utf8)
        let signature = try P256.sign(message, with: key)
        let publicKey = try P256PublicKey(der: try P256.publicKeyDER(of: key))
        #expect(publicKey.isValidSignature(signature, of: message))
        #expect(!publicKey.isValidSignature(signature, of: message + [0]))
        #expect(!publicKey.isValidSignature(try P256.sign(message, with: other), of: message))
        #expect(!publicKey.isValidSignature([0x30, 0x00], of: message))
        #expect(!publicKey.isValidSignature([], of: message))
    }

    @Test("keys that are not P-256 or not keys are refused")
    func refusals() throws {
        let rsa = try PrivateKey.generateRSA(bits: 2048)
        // i2d_PUBKEY encodes any key's public half.
        let rsaPublic = try P256.publicKeyDER(of: rsa)
        #expect(throws: OpenSSLError.self) { try P256PublicKey(der: rsaPublic) }
        #expect(throws: OpenSSLError.self) { try P256PublicKey(der: [1, 2, 3]) }
    }

    @Test("openssl dgst verifies our signatures, and we verify its")
    func interoperates() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "ecdsa")
        let key = try P256.generate()
        let message = Array("signed by us".utf8)
        try Data(try P256.publicKeyDER(of: key)).write(to: URL(fileURLWithPath: directory + "/public.der"))
        try Data(message).write(to: URL(fileURLWithPath: directory + "/message"))
        try Data(try P256.sign(message, with: key)).write(to: URL(fileURLWithPath: directory + "/signature"))
        let verified = try run("openssl", ["dgst", "-sha256", "-verify", directory + "/public.der", "-keyform", "DER", "-signature", directory + "/signature", directory + "/message"])
        #expect(verified.status == 0, "\(verified.output) \(verified.error)")

        let generated = try run("openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", directory + "/cli.pem"])
        #expect(generated.status == 0, "\(generated.error)")
        let signed = try run("openssl", ["dgst", "-sha256", "-sign", directory + "/cli.pem", "-out", directory + "/cli.sig", directory + "/message"])
        #expect(signed.status == 0, "\(signed.error)")
        let exported = try run("openssl", ["ec", "-in", directory + "/cli.pem", "-pubout", "-outform", "DER", "-out", directory + "/cli.der"])
        #expect(exported.status == 0, "\(exported.error)")
        let cliKey = try P256PublicKey(der: [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/cli.der"))))
        #expect(cliKey.isValidSignature([UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/cli.sig"))), of: message))
    }
}
