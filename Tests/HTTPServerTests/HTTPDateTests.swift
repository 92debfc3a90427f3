import Foundation
import HTTPServer
import PassServerTesting
import Testing

@Suite("HTTPDate: format and parse", .offCooperativePool)
struct HTTPDateTests {
    @Test("RFC 9110's example in all three forms")
    func example() {
        #expect(HTTPDate.format(epochSeconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == 784_111_777)
    }

    @Test("format then parse is the identity", arguments: [Int64(0), 1, 951_782_400, 1_709_164_800, 1_780_000_000, 4_102_444_799])
    func roundTrip(seconds: Int64) {
        let text = HTTPDate.format(epochSeconds: seconds)
        #expect(text.hasSuffix(" GMT"))
        #expect(text.count == 29)
        #expect(HTTPDate.parse(text) == seconds)
    }

    @Test("round trip across many instants, including leap days")
    func manyInstants() {
        var seconds: Int64 = 0
        while seconds < 4_000_000_000 {
            #expect(HTTPDate.parse(HTTPDate.format(epochSeconds: seconds)) == seconds)
            seconds += 86_400 * 37 + 3_611
        }
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 12:00:00 GMT") == 1_709_208_000)
    }

    @Test("RFC 850 two-digit years follow the 50-year rule")
    func twoDigitYears() {
        #expect(HTTPDate.parse("Thursday, 01-Jan-70 00:00:00 GMT") == 0)
        #expect(HTTPDate.parse("Monday, 01-Jan-24 00:00:00 GMT") == 1_704_067_200)
    }

    @Test("garbage is nil, never a crash", arguments: [
        "", "GMT", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Feb 1994 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:61:00 GMT", "Sun, 006 Nov 1994 08:49:37 GMT", "Sun, -6 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov  6 08:49 1994", "1780000000", "Sun, 06 Nov 1994 08:49:37 GMT extra",
        "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 99999999999999999999 08:49:37 GMT",
    ])
    func garbage(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("Last-Modified dates parse to epoch seconds; other forms do not")
    func lastModifiedFromAClient() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", obsoleteForms: false) == 784_111_777)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT", obsoleteForms: false) == 0)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", obsoleteForms: false) == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 UTC", obsoleteForms: false) == nil)
        #expect(HTTPDate.parse("Sun, 06 Xyz 1994 08:49:37 GMT", obsoleteForms: false) == nil)
    }
}
