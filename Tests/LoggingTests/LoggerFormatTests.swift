import Foundation
import Testing

@testable import Logging

/// The access log's fast path writes the line the dictionary form writes: the timestamp's digits
/// written directly, metadata sorted by key, a field given twice keeping its last value, the
/// logger's own metadata giving way to the line's.
@Suite("Logger lines")
struct LoggerFormatTests {
    @Test("timestamps: UTC, zero-padded, milliseconds")
    func timestamps() {
        #expect(Logger.timestamp(seconds: 0, milliseconds: 5) == "1970-01-01T00:00:00.005Z")
        #expect(Logger.timestamp(seconds: 1_796_568_452, milliseconds: 123) == "2026-12-06T14:47:32.123Z")
        #expect(Logger.timestamp(seconds: 4_102_444_799, milliseconds: 999) == "2099-12-31T23:59:59.999Z")
        let now = Logger.timestamp()
        #expect(now.utf8.count == 24 && now.hasSuffix("Z"), "\(now)")
    }

    @Test("pairs give the dictionary's line")
    func pairsMatchDictionary() {
        let sink = MemorySink()
        let logger = Logger(label: "http", metadata: ["instance": "a b", "status": "base"], sink: sink)
        logger.log(.info, "request", fields: [("status", "200"), ("path", "/v1/x\ny"), ("bytes", "0"), ("path", "/v1/z")])
        logger.info("request", ["status": "200", "path": "/v1/z", "bytes": "0"])
        let lines = sink.lines.map { String($0.drop(while: { $0 != " " })) }
        #expect(lines.count == 2)
        #expect(lines[0] == lines[1], "\(lines)")
        #expect(lines[0] == #" info http: request bytes=0 instance="a b" path=/v1/z status=200"#)
    }

    @Test("below the logger's level nothing is written")
    func level() {
        let sink = MemorySink()
        Logger(label: "http", level: .warning, sink: sink).log(.info, "request", fields: [("status", "200")])
        Logger(label: "http", level: .warning, sink: sink).log(.warning, "request", fields: [("status", "500")])
        #expect(sink.lines.count == 1)
    }
}
