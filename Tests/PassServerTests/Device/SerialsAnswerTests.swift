import Foundation
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Device API: the changed-serials answer's bytes", .offCooperativePool)
struct SerialsAnswerTests {
    static let cases: [[String]] = [
        ["A1B2C3D4E5F6G7H8J9K0LM"],
        ["one", "two", "three"],
        ["with/slash", "ünïcödé ✓", "\u{2028}\u{7F}", "a b-c_d.e~f"],
        ["quote\"d"],
        ["back\\slash"],
        ["tab\there", "line\nbreak"],
        ["\u{0}\u{8}\u{C}\u{1F}"],
        [],
    ]

    @Test("written directly or through the encoder, the bytes equal JSONEncoder.api's", arguments: cases)
    func sameBytesAsTheEncoder(serials: [String]) throws {
        let body = DeviceController.SerialsBody(serialNumbers: serials, lastUpdated: "1234567")
        let expected = Array(try JSONEncoder.api.encode(body))
        let direct = DeviceController.serialsJSON(body)
        let needsEscaping = serials.contains { $0.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") } }
        // Strings that need escaping are left to the encoder; the others are written directly.
        #expect((direct == nil) == needsEscaping)
        if let direct { #expect(direct == expected, "\(String(decoding: direct, as: UTF8.self)) vs \(String(decoding: expected, as: UTF8.self))") }
    }
}
