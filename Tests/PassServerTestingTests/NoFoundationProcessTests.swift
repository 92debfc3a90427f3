import Foundation
import PassServerTesting
import SystemSupport
import Testing

/// Foundation's `Process` must not come back: on Swift 6.3.1 for Linux its `run()` reads past a
/// `dirent` name while it lists /proc/self/fd, and now and then crashes the whole test runner
/// (SIGSEGV in memcpy under `Process.run()`).
@Suite("No Foundation Process", .offCooperativePool)
struct NoFoundationProcessTests {
    /// The package root: this file is Tests/PassServerTestingTests/NoFoundationProcessTests.swift.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Creating a `Process`, or naming Foundation's. (The escapes keep this line from matching itself.)
    static var forbidden: Regex<Substring> { #/\bProcess\(\)|\bFoundation\.Process\b/#.wordBoundaryKind(.simple) }

    static let advice = """
        Foundation's Process crashes the test runner now and then on Swift 6.3.1 for Linux (Process.run() \
        over-reads a dirent while listing /proc/self/fd). Use ChildProcess from PassServerTesting (or \
        run(_:_:in:) for a command whose output you want) instead.
        """

    /// The lines of `text` that use Foundation's `Process`, as "line: text".
    static func offences(in text: String) -> [String] {
        let forbidden = forbidden
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            // The plain search first: the regular expression is slow in debug builds.
            line.contains("Process") && line.contains(forbidden) ? "\(index + 1): \(line.trimmingCharacters(in: .whitespaces))" : nil
        }
    }

    @Test("the pattern finds Foundation's Process and nothing else")
    func pattern() {
        for offending in ["let p = " + "Process" + "()", "var p: Foundation." + "Process", "Foundation." + "Process" + ".run"] {
            #expect(Self.offences(in: offending).count == 1, "\(offending)")
        }
        for allowed in ["ChildProcess(\"true\")", "ProcessInfo.processInfo", "ServerProcess([])", "Foundation.ProcessInfo"] {
            #expect(Self.offences(in: allowed).isEmpty, "\(allowed)")
        }
    }

    @Test("no Swift file under Sources/ or Tests/ uses Foundation's Process")
    func noProcess() throws {
        var checked = 0
        var found: [String] = []
        for folder in ["Sources", "Tests"] {
            let root = Self.packageRoot.appendingPathComponent(folder)
            let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
            while let relative = enumerator.nextObject() as? String {
                guard relative.hasSuffix(".swift") else { continue }
                let text = try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
                checked += 1
                found += Self.offences(in: text).map { "\(folder)/\(relative):\($0)" }
            }
        }
        #expect(checked > 100, "found the package's sources")
        #expect(found == [], "\(Self.advice)\n\(found.joined(separator: "\n"))")
    }
}
