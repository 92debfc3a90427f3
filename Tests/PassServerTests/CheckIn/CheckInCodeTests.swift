import PassIdentifiers
import Foundation
import PassServerTesting
import Testing

@testable import PassServer

/// Signed barcodes: what `TokenVault.barcode` makes and `CheckInCode.parse` reads back.
@Suite("Check-in: signed barcodes", .offCooperativePool)
struct CheckInCodeTests {
    let vault = TokenVault(secret: Array(repeating: 3, count: 32))

    @Test("a code is serial~mac, URL-safe, 37 characters for a 20-character serial, and verifies only for its serial and secret")
    func roundTrip() throws {
        let passType: PassTypeIdentifier = "pass.com.example.tickets"
        let serial: SerialNumber = "AbC-12_xyzAbC-12_xyz"
        let (message, checkCode) = try vault.barcode(passType: passType, serial: serial)
        #expect(message.utf8.count == 37)
        #expect(message.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-_~".utf8.contains(byte)
        })
        guard case .signed(let parsed, let mac) = CheckInCode.parse(" \(message)\n") else {
            Issue.record("not read as a signed code: \(CheckInCode.parse(message))")
            return
        }
        #expect(parsed == serial)
        #expect(try vault.verifiesBarcode(passType: passType, serial: serial, mac: mac))
        let other: SerialNumber = "AbC-12_xyzAbC-12_xyZ"
        #expect(try !vault.verifiesBarcode(passType: passType, serial: other, mac: mac))
        #expect(try !TokenVault(secret: Array(repeating: 4, count: 32)).verifiesBarcode(passType: passType, serial: serial, mac: mac))
        // Its own derivation label: neither the authentication nor the download token.
        #expect(!(try vault.authenticationToken(passType: passType, serial: serial).rawValue).hasPrefix(mac))
        #expect(!(try vault.downloadToken(passType: passType, serial: serial)).hasPrefix(mac))
        #expect(checkCode.wholeMatch(of: /[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}/) != nil)
        #expect(try vault.checkCode(passType: passType, serial: serial) == checkCode)
        #expect(try vault.checkCode(passType: passType, serial: other) != checkCode)
    }

    @Test("old serial-only codes read as unsigned; anything else as malformed")
    func parse() throws {
        #expect(CheckInCode.parse("T-0001") == .unsigned("T-0001"))
        #expect(CheckInCode.parse("T-0001~AAAAAAAAAAAAAAAA") == .signed("T-0001", mac: "AAAAAAAAAAAAAAAA"))
        for text in ["", "  ", "~", "T-0001~", "T-0001~AAAA", "T-0001~AAAAAAAAAAAAAAA=", "a~b~c", "..", "a b", "é", "T-0001~AAAAAAAAAAAAAAAAA",
                     String(repeating: "x", count: CheckInCode.maxLength + 1)] {
            #expect(CheckInCode.parse(text) == .malformed, "\(text.prefix(30))")
        }
    }

    @Test("the check code is Crockford base32 of the first 40 bits")
    func checkCode() {
        #expect(CheckInCode.checkCode([0, 0, 0, 0, 0]) == "0000-0000")
        #expect(CheckInCode.checkCode([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x12]) == "ZZZZ-ZZZZ")
        // 0x0842108421 is 00001 00001 … in 5-bit groups.
        #expect(CheckInCode.checkCode([0x08, 0x42, 0x10, 0x84, 0x21]) == "1111-1111")
    }
}
