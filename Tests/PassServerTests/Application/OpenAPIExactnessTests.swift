import Foundation
import HTTPServer
import PassServerFixtures
import PassServerTesting
import SystemSupport
import Testing

@testable import PassServer

/// The limits and patterns of `openapi.yaml` are the ones the server enforces: each is read from
/// the document with a real YAML parser and a real regex engine, and compared with the server's
/// own check on the same edge cases.
@Suite("OpenAPI document: the server's rules", .offCooperativePool, .timeLimit(.minutes(3)))
struct OpenAPIExactnessTests {
    /// Evaluates `components.schemas[schema]` (pattern, maxLength, enum) on every sample with
    /// Python's `re` (the patterns are anchored `^…$`, checked with `fullmatch` so `$` cannot
    /// match before a final newline, as in ECMA-262).
    static func documentAccepts(_ schema: String, _ samples: [String]) throws -> [Bool] {
        let script = """
            import json, re, sys, yaml
            request = json.load(sys.stdin)
            schema = yaml.safe_load(open(sys.argv[1]))["components"]["schemas"][request["schema"]]
            def accepts(value):
                if "enum" in schema:
                    return value in schema["enum"]
                if len(value) > schema.get("maxLength", 10**9):
                    return False
                pattern = schema["pattern"]
                assert pattern.startswith("^") and pattern.endswith("$"), pattern
                return re.fullmatch(pattern[1:-1], value) is not None
            print(json.dumps([accepts(value) for value in request["samples"]]))
            """
        let request = try JSONSerialization.data(withJSONObject: ["schema": schema, "samples": samples])
        let requestPath = FileManager.default.temporaryDirectory.appendingPathComponent("schema-request-\(UUID().uuidString).json").path
        try request.write(to: URL(fileURLWithPath: requestPath))
        defer { try? FileManager.default.removeItem(atPath: requestPath) }
        let process = try ChildProcess(
            "/usr/bin/python3", ["-c", script, OpenAPITests.documentPath],
            standardInput: .file(requestPath), standardOutput: .pipe, standardError: .pipe
        )
        let (outputBytes, errorBytes) = try process.readToEnd()
        let data = Data(outputBytes)
        let errorText = String(decoding: errorBytes, as: UTF8.self)
        _ = process.waitUntilExit()
        guard process.terminationStatus == 0, let verdicts = try JSONSerialization.jsonObject(with: data) as? [Bool] else {
            throw AdminSupport.Failure(description: "python3 failed: \(errorText)")
        }
        return verdicts
    }

    /// Whether the admin input reader accepts `value` for a field read by `read`.
    static func serverAccepts(_ value: String, _ read: (inout AdminInput) -> Void) throws -> Bool {
        let body = try JSONSerialization.data(withJSONObject: ["field": value])
        var input = try AdminInput(Request(method: .POST, body: Array(body)), allowed: ["field"])
        read(&input)
        return input.problems.isEmpty
    }

    private func compare(
        _ schema: String, _ samples: [String], sourceLocation: SourceLocation = #_sourceLocation, _ read: (inout AdminInput) -> Void
    ) throws {
        let document = try Self.documentAccepts(schema, samples)
        #expect(document.count == samples.count, "\(schema): a verdict for every sample", sourceLocation: sourceLocation)
        for (sample, documented) in zip(samples, document) {
            let server = try Self.serverAccepts(sample, read)
            #expect(server == documented, "\(schema) \(sample.debugDescription): document \(documented), server \(server)", sourceLocation: sourceLocation)
        }
    }

    @Test("DateTime: the pattern and the server's parser agree on edge cases")
    func dateTimes() throws {
        var samples = [
            "2027-03-01T19:00:00+09:00", "2027-03-01T19:00:00Z", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
            "1969-12-31T23:59:59Z", "10000-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "2027-03-01T19:00:00+18:00",
            "2027-03-01T19:00:00-18:00", "2027-03-01T19:00:00+18:01", "2027-03-01T19:00:00-19:00", "2027-03-01T19:00:00+17:59",
            "2027-02-28T00:00:00Z", "2027-02-29T00:00:00Z", "2028-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2100-02-29T00:00:00Z",
            "2400-02-29T00:00:00Z", "1972-02-29T00:00:00Z", "1973-02-29T00:00:00Z", "2027-04-31T00:00:00Z", "2027-04-30T00:00:00Z",
            "2027-12-31T00:00:00Z", "2027-13-01T00:00:00Z", "2027-00-01T00:00:00Z", "2027-01-00T00:00:00Z", "2027-01-32T00:00:00Z",
            "2027-03-01T24:00:00Z", "2027-03-01T23:60:00Z", "2027-03-01T23:59:60Z", "2027-03-01T19:00:00.5Z",
            "2027-03-01T19:00:00.123456789+01:00", "2027-03-01T19:00:00.Z", "2027-03-01T19:00Z", "2027-03-01T19:00:00",
            "2027-03-01T19:00:00+0900", "2027-03-01T19:00:00+09", "2027-03-01t19:00:00z", "2027-03-01 19:00:00Z",
            " 2027-03-01T19:00:00Z", "2027-03-01T19:00:00Z ", "2027-03-01T19:00:00Z\n", "", "٢٠٢٧-03-01T19:00:00Z",
            "2027-03-01T19:00:00." + String(repeating: "1", count: 44) + "Z", "2027-03-01T19:00:00." + String(repeating: "1", count: 45) + "Z",
        ]
        for year in [1970, 1996, 2000, 2024, 2100, 2400, 3000, 5200, 9600, 9996, 9999] {
            samples.append(String(format: "%04d-02-29T12:00:00Z", year))
        }
        try compare("DateTime", samples) { _ = $0.date("field") }
    }

    @Test("Text, Seat, Reason: lengths in Unicode scalars, controls and blanks")
    func texts() throws {
        let marks = "A" + String(repeating: "\u{0301}", count: 199)
        let samples = [
            "Ada", " Ada ", "Ada\n", "\nAda", "A\u{0}B", "A\u{7F}", "A\u{85}B", "A\u{9F}", "A\u{A0}B", "\u{A0}", " ", "\u{3000}\u{2028}",
            "", "\u{200B}", "\u{FEFF}", "\u{202E}evil", "😀", marks, marks + "\u{0301}", String(repeating: "x", count: 200),
            String(repeating: "x", count: 201), String(repeating: " ", count: 199) + "x", String(repeating: "e\u{0301}", count: 100),
            "\t", "a\tb", "\u{1680}", "\u{180E}", "\u{2029}x\u{2029}",
        ]
        try compare("Text", samples) { _ = $0.text("field") }
        try compare("Seat", samples) { _ = $0.text("field", maxLength: 64) }
        try compare("Reason", samples + [String(repeating: "r", count: 500), String(repeating: "r", count: 501)]) { _ = $0.text("field", maxLength: 500) }
    }

    @Test("Email: one @, no spaces or controls, a dot inside the domain, 254 scalars")
    func emails() throws {
        let samples = [
            "ada@example.com", "a@b.c", "a@.c", "a@b.", "a@bc", "@b.c", "a@@b.c", "a@b@c.d", "a b@c.d", "a@b.c d", " a@b.c", "a@b.c ",
            "a\u{0}@b.c", "a@b..c", "a@.b.c", "ä@ü.ö", "a@b\u{A0}.c", "a@b.c\n", "a.b@c", "x@y.z." , "a@b.c.",
            String(repeating: "a", count: 248) + "@b.com", String(repeating: "a", count: 249) + "@b.com",
        ]
        try compare("Email", samples) { _ = $0.email("field") }
    }

    @Test("Language: two or three lowercase letters, optionally a hyphen and 2–8 letters or digits")
    func languages() throws {
        let samples = [
            "en", "ja", "ast", "pt-BR", "zh-Hant", "en-001", "e", "engl", "EN", "en-", "-BR", "en-B", "en-123456789", "en_US", "en-BR-x",
            "ja ", " ja", "ja\n", "日本", "en-GB1234", "",
        ]
        try compare("Language", samples) { _ = $0.language("field") }
    }

    @Test("TimeZone and Template list exactly what the server accepts")
    func enumerations() throws {
        let zones = AdminInput.timeZones.sorted()
        let extra = ["EST", "US/Pacific", "GMT+5", "utc", "asia/tokyo", "Mars/Olympus", "", " UTC", "UTC "]
        try compare("TimeZone", zones + extra) { _ = $0.timeZone("field") }
        let shipped = try FileManager.default.contentsOfDirectory(atPath: PassServerExecutable.packageRoot.appendingPathComponent("Passes").path)
            .filter { !$0.hasPrefix(".") }
        #expect(try Self.documentAccepts("Template", shipped + ["nope", "event-ticket "]) == shipped.map { _ in true } + [false, false])
    }
}
