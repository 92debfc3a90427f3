import ByteEncoding
import PassIdentifiers
import Certificates
import Foundation
import PassServerTesting
import Testing

@testable import PassServer

@Suite("TokenVault: derived tokens, stored hashes, constant-time match", .offCooperativePool)
struct TokenVaultTests {
    let passType: PassTypeIdentifier = "pass.com.example.tickets"
    let serial: SerialNumber = "SERIAL-1"

    @Test("derivation is deterministic per secret, pass and purpose")
    func derive() throws {
        let vault = TokenVault(secret: Array(repeating: 1, count: 32))
        let token = try vault.authenticationToken(passType: passType, serial: serial)
        #expect(token.rawValue.count == 43)
        #expect(token.rawValue.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "=") })
        #expect(try vault.authenticationToken(passType: passType, serial: serial) == token)
        #expect(try TokenVault(secret: Array(repeating: 1, count: 32)).authenticationToken(passType: passType, serial: serial) == token)
        #expect(try TokenVault(secret: Array(repeating: 2, count: 32)).authenticationToken(passType: passType, serial: serial) != token)
        let other: SerialNumber = "SERIAL-2"
        #expect(try vault.authenticationToken(passType: passType, serial: other) != token)
        #expect(try vault.downloadToken(passType: passType, serial: serial) != token.rawValue)
    }

    @Test("the stored hash is SHA-256: 32 bytes, not the token")
    func hash() throws {
        let hash = try TokenVault.hash("abc")
        #expect(hash.count == 32)
        // SHA-256("abc") from FIPS 180-2.
        #expect(Hex.encode(hash) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try TokenVault.hash("abd") != hash)
    }

    @Test("match and mismatch")
    func match() throws {
        let vault = TokenVault(secret: Array(repeating: 9, count: 32))
        let token = try vault.authenticationToken(passType: passType, serial: serial).rawValue
        let stored = try TokenVault.hash(token)
        #expect(try TokenVault.matches(token, storedHash: stored))
        #expect(try !TokenVault.matches(token + "a", storedHash: stored))
        #expect(try !TokenVault.matches(String(token.dropLast()), storedHash: stored))
        #expect(try !TokenVault.matches("", storedHash: stored))
        #expect(try !TokenVault.matches(token, storedHash: []))
        #expect(try !TokenVault.matches(token, storedHash: Array(stored.prefix(16))))
        #expect(try !TokenVault.matches(token, storedHash: [UInt8](repeating: 0, count: 32)))
    }
}
