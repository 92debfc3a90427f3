import PassServerTesting
import Testing

@testable import PassServer

/// The RFC 4180 parser on its own: bytes in, records (or a located error) out.
@Suite("CSV parsing", .offCooperativePool)
struct CSVParsingTests {
    private func parse(_ text: String) throws -> [[String]] {
        try CSV.records(Array(text.utf8)).map(\.fields)
    }

    private func error(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> CSV.ParseError? {
        #expect(throws: CSV.ParseError.self, sourceLocation: sourceLocation) { _ = try CSV.records(bytes) }
        do {
            _ = try CSV.records(bytes)
        } catch let error as CSV.ParseError {
            return error
        } catch {}
        return nil
    }

    @Test("plain fields, LF and CRLF line ends, with or without a final line break")
    func lineEnds() throws {
        #expect(try parse("a,b\n1,2\n") == [["a", "b"], ["1", "2"]])
        #expect(try parse("a,b\r\n1,2\r\n") == [["a", "b"], ["1", "2"]])
        #expect(try parse("a,b\r\n1,2") == [["a", "b"], ["1", "2"]])
        #expect(try parse("a,b\r1,2\r") == [["a", "b"], ["1", "2"]], "a lone CR ends a record too")
        #expect(try parse("a,b\n1,2\r\n3,4") == [["a", "b"], ["1", "2"], ["3", "4"]], "mixed line ends")
        #expect(try parse("") == [])
    }

    @Test("empty fields and empty lines")
    func emptyFields() throws {
        #expect(try parse("a,,c\n,,\n") == [["a", "", "c"], ["", "", ""]])
        #expect(try parse("a,\n") == [["a", ""]], "a trailing comma is an empty last field")
        #expect(try parse("a,") == [["a", ""]])
        let records = try CSV.records(Array("h\n\nx\n".utf8))
        #expect(records.map(\.fields) == [["h"], [""], ["x"]])
        #expect(records.map(\.number) == [1, 2, 3])
        #expect(records[1].isBlank && !records[2].isBlank)
    }

    @Test("quoted fields hold commas, line breaks and doubled quotes; numbers count records, not lines")
    func quoted() throws {
        let text = "name,note\r\n\"Lovelace, Ada\",\"said \"\"hi\"\"\"\r\n\"two\r\nlines\",\"a\nb\"\r\nlast,\"\"\r\n"
        let records = try CSV.records(Array(text.utf8))
        #expect(records.map(\.fields) == [["name", "note"], ["Lovelace, Ada", "said \"hi\""], ["two\r\nlines", "a\nb"], ["last", ""]])
        #expect(records.map(\.number) == [1, 2, 3, 4])
        #expect(try parse("\"\"\"\"") == [["\""]])
        #expect(try parse("\",\"") == [[","]])
    }

    @Test("a UTF-8 byte order mark at the start is skipped; one elsewhere is data")
    func byteOrderMark() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(try CSV.records(bom + Array("a,b\n山田 太郎,x".utf8)).map(\.fields) == [["a", "b"], ["山田 太郎", "x"]])
        #expect(try CSV.records(bom + Array("\"q\"".utf8)).map(\.fields) == [["q"]], "a quoted first field after the mark")
        #expect(try CSV.records(bom).map(\.fields) == [])
        #expect(try CSV.records(Array("a,".utf8) + bom).map(\.fields) == [["a", "\u{FEFF}"]])
        #expect(try CSV.records(Array("ab".utf8)).map(\.fields) == [["ab"]], "two bytes that could start a mark")
    }

    @Test("chunk boundaries anywhere give the same records")
    func chunks() throws {
        let text = Array("\u{FEFF}h1,h2\r\n\"a,\"\"b\"\"\r\nc\",d\re,\"\"\n".utf8)
        let whole = try CSV.records(text)
        for size in 1...7 {
            var parser = CSV.Parser()
            var records: [CSV.Record] = []
            for start in stride(from: 0, to: text.count, by: size) {
                try parser.parse(text[start..<min(start + size, text.count)]) { records.append($0) }
            }
            try parser.finish { records.append($0) }
            #expect(records == whole, "chunks of \(size) bytes")
        }
    }

    @Test("an unterminated quote names the record where its field starts")
    func unterminatedQuote() {
        let found = error(Array("h\nok\n\"never\nclosed,\nstill\n".utf8))
        #expect(found?.row == 3)
        #expect(found?.message.contains("not closed") == true)
    }

    @Test("a quote inside an unquoted field, or text after a closing quote, is an error in its record")
    func strayQuotes() {
        #expect(error(Array("h\nab\"c\n".utf8)) == CSV.ParseError(row: 2, message: "a \" inside an unquoted field (quote the whole field and double the \")"))
        let after = error(Array("h\n\"x\"y\n".utf8))
        #expect(after?.row == 2)
        #expect(after?.message.contains("closing") == true)
    }

    @Test("invalid UTF-8 is refused with its record")
    func invalidUTF8() {
        let found = error(Array("h\nok\n".utf8) + [0x41, 0xC3, 0x28] + Array(",x\n".utf8))
        #expect(found?.row == 3)
        #expect(found?.message.contains("UTF-8") == true)
        #expect(error([0xEF, 0xBB])?.row == 1, "the start of a mark and nothing else")
    }

    @Test("emitting stops when the caller throws")
    func callerStops() {
        struct Enough: Error {}
        var parser = CSV.Parser()
        var seen = 0
        #expect(throws: Enough.self) {
            try parser.parse(Array("a\nb\nc\nd\n".utf8)) { _ in
                seen += 1
                if seen == 2 { throw Enough() }
            }
        }
        #expect(seen == 2)
    }
}
