import Foundation
import HTTPServer
import PassServerTesting
import Testing

@testable import PassServer

@Suite("PassFreshness: tags and If-Modified-Since", .offCooperativePool)
struct PassFreshnessTests {
    @Test("passesUpdatedSince: absent, empty, unparsable or negative means everything")
    func tags() {
        #expect(PassFreshness.revision(fromTag: nil) == 0)
        #expect(PassFreshness.revision(fromTag: "") == 0)
        #expect(PassFreshness.revision(fromTag: "abc") == 0)
        #expect(PassFreshness.revision(fromTag: "-3") == 0)
        #expect(PassFreshness.revision(fromTag: "1.5") == 0)
        #expect(PassFreshness.revision(fromTag: " 7") == 0)
        #expect(PassFreshness.revision(fromTag: "99999999999999999999") == 0)
        #expect(PassFreshness.revision(fromTag: "0") == 0)
        #expect(PassFreshness.revision(fromTag: "42") == 42)
        #expect(PassFreshness.revision(fromTag: String(Int64.max)) == Int64.max)
    }

    static let modified: Int64 = 1_780_000_000  // a whole second
    static let now: Int64 = modified + 3_600

    @Test("304 only when the phone's date is at or after the modification, at one-second precision")
    func oneSecondPrecision() {
        let at = HTTPDate.format(epochSeconds: Self.modified)
        let before = HTTPDate.format(epochSeconds: Self.modified - 1)
        let after = HTTPDate.format(epochSeconds: Self.modified + 1)
        #expect(PassFreshness.isNotModified(modifiedAt: Self.modified, ifModifiedSince: at, now: Self.now))
        #expect(PassFreshness.isNotModified(modifiedAt: Self.modified, ifModifiedSince: after, now: Self.now))
        #expect(!PassFreshness.isNotModified(modifiedAt: Self.modified, ifModifiedSince: before, now: Self.now))
        #expect(!PassFreshness.isNotModified(modifiedAt: Self.modified, ifModifiedSince: nil, now: Self.now))
    }

    @Test("RFC 850 and asctime dates are understood as well as IMF-fixdate")
    func historicForms() {
        // 1_780_000_000 is Thu, 28 May 2026 20:26:40 GMT.
        #expect(HTTPDate.format(epochSeconds: Self.modified) == "Thu, 28 May 2026 20:26:40 GMT")
        for header in ["Thursday, 28-May-26 20:26:40 GMT", "Thu May 28 20:26:40 2026"] {
            #expect(PassFreshness.isNotModified(modifiedAt: Self.modified, ifModifiedSince: header, now: Self.now), "\(header)")
            #expect(!PassFreshness.isNotModified(modifiedAt: Self.modified + 1, ifModifiedSince: header, now: Self.now), "\(header)")
        }
    }

    @Test("unparsable and future dates are ignored, except our own Last-Modified running ahead of the clock")
    func untrusted() {
        for header in ["", "yesterday", "1780000000", "Thu, 28 May 2026 20:26:40", "Thu, 28 May 2026 25:00:00 GMT"] {
            #expect(!PassFreshness.isNotModified(modifiedAt: Self.modified, ifModifiedSince: header, now: Self.now), "\(header)")
        }
        let future = HTTPDate.format(epochSeconds: Self.now + 60)
        #expect(!PassFreshness.isNotModified(modifiedAt: Self.modified, ifModifiedSince: future, now: Self.now))
        // Two changes inside one second put modifiedAt a second past the clock; the phone echoing it gets a 304.
        let ahead = Self.now + 1
        #expect(PassFreshness.isNotModified(modifiedAt: ahead, ifModifiedSince: HTTPDate.format(epochSeconds: ahead), now: Self.now))
        #expect(!PassFreshness.isNotModified(modifiedAt: ahead, ifModifiedSince: HTTPDate.format(epochSeconds: Self.now), now: Self.now))
        #expect(!PassFreshness.isNotModified(modifiedAt: ahead, ifModifiedSince: HTTPDate.format(epochSeconds: ahead + 1), now: Self.now))
    }
}
