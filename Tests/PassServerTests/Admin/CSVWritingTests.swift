import PassServerTesting
import Testing

@testable import Fleet
@testable import PassServer

/// The CSV writer and its formula guard, read back by the parser the import uses.
@Suite("CSV writing and the formula guard", .offCooperativePool)
struct CSVWritingTests {
    @Test func quotesOnlyWhatNeedsIt() throws {
        let record = CSV.record(["plain", "a,b", #"say "hi""#, "line\r\nbreak", "lf\nonly", " lead", "trail ", "", "日本語"])
        #expect(String(decoding: record, as: UTF8.self) == #"plain,"a,b","say ""hi""","line"# + "\r\n" + #"break","lf"# + "\n" + #"only"," lead","trail ",,日本語"# + "\r\n")
    }

    @Test(arguments: [
        ("=1+1", "'=1+1"), ("+81 90", "'+81 90"), ("-5", "'-5"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\rx"),
        ("'=x", "''=x"),
        // A formula scalar followed by a combining mark, a joiner or a variation selector is one
        // `Character` that is not the formula character; spreadsheets still see a formula. CR LF is
        // one `Character` too.
        ("=\u{301}1+1", "'=\u{301}1+1"), ("-\u{200D}x", "'-\u{200D}x"), ("@\u{20E3}", "'@\u{20E3}"), ("+\u{FE0F}81", "'+\u{FE0F}81"),
        ("\r\nx", "'\r\nx"), ("'=\u{301}x", "''=\u{301}x"), ("'\u{301}", "'\u{301}"), ("''-x", "'''-x"), ("'quoted", "'quoted"), ("'", "'"), ("''", "''"), ("a=b", "a=b"), ("", ""), ("O'Neil", "O'Neil"),
    ])
    func formulaGuard(value: String, written: String) {
        #expect(CSV.formulaSafe(value) == written)
        #expect(CSV.removingFormulaGuard(written) == value)
    }

    @Test("any value survives writing, reading and removing the guard")
    func roundTrip() throws {
        // Seeded, so a failure reproduces.
        var random = SeededRandom(seed: 14)
        let alphabet: [Character] = ["=", "+", "-", "@", "'", "\t", "\r", "\n", ",", "\"", " ", "a", "Z", "0", "あ", "é", "😀", "\u{301}", "\u{200D}", "\u{FE0F}"]
        for _ in 0..<2_000 {
            let fields = (0..<Int(random.next() % 4 + 1)).map { _ in
                String((0..<Int(random.next() % 7)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            }
            let written = CSV.record(fields)
            #expect(written.suffix(2) == [13, 10], "a record ends with CRLF")
            let records = try CSV.records(written).map(\.fields)
            #expect(records.count == 1)
            #expect(records.first?.map(CSV.removingFormulaGuard) == fields, "\(fields)")
            #expect(records.first?.allSatisfy { cell in cell.unicodeScalars.first.map { !CSV.formulaStarts.contains($0) } ?? true } == true, "\(fields)")
        }
    }
}
