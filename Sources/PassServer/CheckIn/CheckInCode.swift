import PassIdentifiers
import Foundation

/// What a scanner read from a ticket's barcode.
///
/// Passes issued since signed barcodes carry `serial~mac` (`TokenVault.barcode`): 20 serial
/// characters, `~`, 16 characters of HMAC, 37 in all, a version 3 QR code at the lowest density.
/// Passes issued before carry their bare serial number; those are still accepted at the door,
/// flagged `unsigned`, because anyone who learns a serial can print one.
enum CheckInCode: Equatable {
    /// A signed code: the serial and the signature to check.
    case signed(SerialNumber, mac: String)
    /// An old serial-only code.
    case unsigned(SerialNumber)
    /// Not a code this server ever issued (no valid serial, or a signature of the wrong shape).
    case malformed

    /// Between the serial and its signature; never part of a serial number.
    static let separator: Character = "~"
    /// Bytes of the HMAC carried in the code (96 bits: forging one is a 2⁹⁶ guess per serial).
    static let macBytes = 12
    /// Base64url characters of those bytes.
    static let macLength = 16
    /// The longest code looked at; anything longer is malformed without further work.
    static let maxLength = 256

    /// Reads a scanned code. Surrounding white space (a keyboard-wedge scanner's Enter) is ignored.
    static func parse(_ text: String) -> CheckInCode {
        let code = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !code.isEmpty, code.utf8.count <= maxLength else { return .malformed }
        let parts = code.split(separator: separator, omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            return SerialNumber(code).map(CheckInCode.unsigned) ?? .malformed
        case 2:
            let mac = String(parts[1])
            guard let serial = SerialNumber(String(parts[0])), mac.utf8.count == macLength,
                mac.utf8.allSatisfy(IdentifierBytes.isBase64URL)
            else { return .malformed }
            return .signed(serial, mac: mac)
        default:
            return .malformed
        }
    }

    /// The short check code shown under the barcode (`altText`): eight characters of the code's
    /// HMAC in Crockford's base32 (no I, L, O, U: nothing to misread), as `XXXX-XXXX`. Door staff
    /// compare it with what the scanner shows; it carries no personal data.
    static func checkCode(_ mac: [UInt8]) -> String {
        var value: UInt64 = 0
        for byte in mac.prefix(5) { value = value << 8 | UInt64(byte) }
        var characters: [UInt8] = []
        for index in (0..<8).reversed() { characters.append(crockford[Int(value >> (UInt64(index) * 5) & 31)]) }
        characters.insert(UInt8(ascii: "-"), at: 4)
        return String(decoding: characters, as: UTF8.self)
    }

    /// Characters of a check code, without the dash.
    static let checkCodeLength = 8
    /// Distinct check codes: 32⁸ = 2⁴⁰ (five bytes of the HMAC), about 1.1 × 10¹².
    static let checkCodeSpace = 1 << 40

    /// A check code as door staff type it, in the form `checkCode` writes (`3Q3Q-S6MN`); nil when
    /// the text is not one. Surrounding white space is ignored, letters may be of either case, the
    /// dash may be left out or be a space, and Crockford's look-alikes are read as the digits they
    /// look like (O as 0, I and L as 1), as the alphabet intends.
    static func typedCheckCode(_ text: String) -> String? {
        var characters = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).uppercased().utf8)
        if characters.count == checkCodeLength + 1, characters[4] == UInt8(ascii: "-") || characters[4] == UInt8(ascii: " ") {
            characters.remove(at: 4)
        }
        guard characters.count == checkCodeLength else { return nil }
        var code: [UInt8] = []
        for character in characters {
            switch character {
            case UInt8(ascii: "O"): code.append(UInt8(ascii: "0"))
            case UInt8(ascii: "I"), UInt8(ascii: "L"): code.append(UInt8(ascii: "1"))
            case _ where crockford.contains(character): code.append(character)
            default: return nil
            }
        }
        code.insert(UInt8(ascii: "-"), at: 4)
        return String(decoding: code, as: UTF8.self)
    }

    static let crockford = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
}
