import Foundation
import PassIdentifiers
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Device API: the changed-serials answer's bytes", .offCooperativePool)
struct SerialsAnswerTests {
    /// What the answer means, for the encoder to write.
    struct SerialsBody: Encodable {
        var serialNumbers: [String]
        var lastUpdated: String
    }

    /// Every character a serial number may hold, and lengths from one to the longest.
    static let cases: [[String]] = [
        ["A1B2C3D4E5F6G7H8J9K0LM"],
        ["one", "two", "three"],
        ["a-b_c.d:e", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz0123456789", "-_.:"],
        [String(repeating: "z", count: 128), "x"],
        [],
    ]

    @Test("written directly, the bytes equal JSONEncoder.api's", arguments: cases)
    func sameBytesAsTheEncoder(serials: [String]) throws {
        let typed = try serials.map { try #require(SerialNumber($0), "\($0) is a serial number") }
        let expected = Array(try JSONEncoder.api.encode(SerialsBody(serialNumbers: serials, lastUpdated: "1234567")))
        let direct = DeviceController.serialsJSON(typed, lastUpdated: 1_234_567)
        #expect(direct == expected, "\(String(decoding: direct, as: UTF8.self)) vs \(String(decoding: expected, as: UTF8.self))")
    }
}
