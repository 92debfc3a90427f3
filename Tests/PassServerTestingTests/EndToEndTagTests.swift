import Foundation
import PassServerTesting
import Testing

/// Every suite that starts processes (the built programs or a browser) carries `.endToEnd`, so a
/// quick run can leave all of them out with `--skip tag:endToEnd` and leave nothing heavy behind.
@Suite("Suites that start processes are tagged end-to-end", .offCooperativePool)
struct EndToEndTagTests {
    /// The package root: this file is Tests/PassServerTestingTests/EndToEndTagTests.swift.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// What starts a process in a test file: a program of this package, a server process, a browser.
    static let starters = [
        "ServerProcess(", "PassServerExecutable.run(", "PassServerExecutable.launch(", "ProcessFixture(", "BrowserScript.run(",
        "BrowserScript.expectPasses(", "Self.program()",
    ]

    /// The helpers under Tests/ that start processes, where they are defined (not suites
    /// themselves). `ServerProcess` lives in the PassServerFixtures library, outside Tests/.
    static let definitions: Set<String> = [
        "PassServerTests/Application/ProcessFixture.swift", "PassServerTests/Web/BrowserSupport.swift",
        "PassServerTestingTests/EndToEndTagTests.swift", "PassServerTestingTests/NoFoundationProcessTests.swift",
    ]

    /// The `@Suite` lines of `text` without the tag, when the file starts processes.
    static func untagged(in text: String) -> [String] {
        guard starters.contains(where: text.contains) else { return [] }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.enumerated().compactMap { index, line in
            line.hasPrefix("@Suite") && !line.contains(".endToEnd") ? "\(index + 1): \(line)" : nil
        }
    }

    @Test("the check finds an untagged suite that starts a process, and nothing else")
    func pattern() {
        #expect(Self.untagged(in: "@Suite(\"A\", .offCooperativePool)\nstruct A { let p = try ServerProcess([]) }").count == 1)
        #expect(Self.untagged(in: "@Suite(\"A\", .offCooperativePool)\nstruct A { func f() { PassServerExecutable.run([\"x\"]) } }").count == 1)
        #expect(Self.untagged(in: "@Suite(\"A\", .offCooperativePool, .tags(.endToEnd))\nstruct A { let p = try ServerProcess([]) }").isEmpty)
        #expect(Self.untagged(in: "@Suite(\"A\", .offCooperativePool)\nstruct A { let x = 1 }").isEmpty)
    }

    @Test("every suite under Tests/ that starts a process is tagged")
    func everySuite() throws {
        let root = Self.packageRoot.appendingPathComponent("Tests")
        let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
        var starting = 0
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift"), !Self.definitions.contains(relative) else { continue }
            let text = try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
            if Self.starters.contains(where: text.contains) { starting += 1 }
            found += Self.untagged(in: text).map { "Tests/\(relative):\($0)" }
        }
        #expect(starting > 20, "found the suites that start processes")
        #expect(found == [], "Tag them `.tags(.endToEnd)`:\n\(found.joined(separator: "\n"))")
    }
}
