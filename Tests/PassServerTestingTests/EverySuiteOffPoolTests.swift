import Foundation
import PassServerTesting
import Testing

/// Every suite runs off Swift's cooperative pool: a test that blocks on it (a blocking HTTP client, a
/// child process, a database wait) stalls every other test's tasks and the server's under test.
@Suite("Every suite off the cooperative pool", .offCooperativePool)
struct EverySuiteOffPoolTests {
    /// The package root: this file is Tests/PassServerTestingTests/EverySuiteOffPoolTests.swift.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Test targets that do not link PassServerTesting (their tests only compute).
    static let exempt: Set<String> = ["ByteEncodingTests", "LoggingTests", "PassIdentifiersTests"]

    static let advice = """
        Give every suite the trait (`@Suite("…", .offCooperativePool)`, with `import PassServerTesting`), \
        and put every @Test in a suite or in an extension of one.
        """

    /// What in one test file breaks the rule, as "line: text".
    static func offences(in text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var found = lines.enumerated().compactMap { index, line in
            line.hasPrefix("@Suite") && !line.contains(".offCooperativePool") ? "\(index + 1): \(line)" : nil
        }
        let tests = lines.firstIndex { $0.hasPrefix("@Test") }
        let housed = lines.contains { $0.hasPrefix("@Suite") || $0.hasPrefix("extension ") }
        if let tests, !housed { found.append("\(tests + 1): a test outside any suite") }
        return found
    }

    @Test("the check finds suites without the trait and tests without a suite, and nothing else")
    func pattern() {
        let offending = [
            "@Suite struct A {\n    @Test func a() {}\n}",
            "@Suite(\"A\", .serialized)\nstruct A {}",
            "struct A {\n    @Test func a() {}\n}",
        ]
        for text in offending { #expect(Self.offences(in: text).count == 1, "\(text)") }
        let allowed = [
            "@Suite(.offCooperativePool) struct A {\n    @Test func a() {}\n}",
            "@Suite(\"A\", .offCooperativePool, .serialized)\nstruct A {}",
            "extension A {\n    @Test func b() {}\n}",
            "enum Helpers {}",
        ]
        for text in allowed { #expect(Self.offences(in: text).isEmpty, "\(text)") }
    }

    @Test("every suite under Tests/ has the trait")
    func everySuite() throws {
        let root = Self.packageRoot.appendingPathComponent("Tests")
        let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
        var checked = 0
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift"), let target = relative.split(separator: "/").first,
                  !Self.exempt.contains(String(target)) else { continue }
            let text = try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
            checked += 1
            found += Self.offences(in: text).map { "Tests/\(relative):\($0)" }
        }
        #expect(checked > 100, "found the package's tests")
        #expect(found == [], "\(Self.advice)\n\(found.joined(separator: "\n"))")
    }
}
