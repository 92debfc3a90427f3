import Foundation
import PassServerTesting
import Testing

/// The organizer domain's boundary, read from the sources: refusals below the adapters are
/// `OrganizerError`, never the HTTP layer's `HTTPError`, and the dashboard reaches the domain
/// through drafts, not through the JSON reader.
@Suite("Organizer: the domain's boundary in the sources", .offCooperativePool)
struct OrganizerBoundaryTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/PassServer")

    /// The Swift files under `folder` (relative to Sources/PassServer), as (path, code without comments).
    static func files(under folder: String = "") throws -> [(path: String, code: String)] {
        let base = folder.isEmpty ? sources : sources.appendingPathComponent(folder)
        let names = try #require(FileManager.default.enumerator(atPath: base.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        return try names.sorted().map { name in
            let text = try String(contentsOf: base.appendingPathComponent(name), encoding: .utf8)
            let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.trimmingCharacters(in: .whitespaces).hasPrefix("//") ? "" : String(line)
            }.joined(separator: "\n")
            return ("\(folder.isEmpty ? "" : folder + "/")\(name)", code)
        }
    }

    /// The bodies of every `transaction { ... }` / `transaction(...) { ... }` closure in `code`.
    static func transactionBodies(_ code: String) -> [Substring] {
        var bodies: [Substring] = []
        var searchFrom = code.startIndex
        while let call = code.range(of: ".transaction", range: searchFrom..<code.endIndex) {
            searchFrom = call.upperBound
            guard let open = code[call.upperBound...].firstIndex(of: "{") else { break }
            // Only a closure that follows the call directly (its arguments, if any, in between).
            let between = code[call.upperBound..<open].trimmingCharacters(in: .whitespaces)
            guard between.isEmpty || (between.hasPrefix("(") && between.hasSuffix(")") && !between.contains("\n")) else { continue }
            var depth = 0
            var index = open
            while index < code.endIndex {
                if code[index] == "{" { depth += 1 }
                if code[index] == "}" { depth -= 1; if depth == 0 { break } }
                index = code.index(after: index)
            }
            bodies.append(code[open..<min(index, code.endIndex)])
        }
        return bodies
    }

    @Test("the reader of transaction closures finds them, and finds an HTTPError thrown in one")
    func readerFindsThem() {
        let code = """
            let x = try store.transaction { session in
                if bad { throw HTTPError.badRequest("no") }
                return try session.write { inner in inner }
            }
            let y = try store.transaction(.serializable) { _ in 1 }
            let z = store.transactionCount
            if z > 0 { throw HTTPError.internalError }
            """
        let bodies = Self.transactionBodies(code)
        #expect(bodies.count == 2)
        #expect(bodies.first?.contains("HTTPError") == true)
        #expect(bodies.first?.contains("inner in inner }") == true, "nested braces stay inside the body")
        #expect(bodies.last?.contains("HTTPError") == false)
    }

    @Test("nothing under Organizer/ or CheckIn/ mentions HTTPError; no transaction closure throws one")
    func noHTTPErrorBelowTheAdapters() throws {
        let domain = try Self.files(under: "Organizer") + Self.files(under: "CheckIn")
        #expect(domain.count >= 5, "found the domain's sources")
        #expect(domain.filter { $0.code.contains("HTTPError") }.map(\.path) == [])

        let all = try Self.files()
        let withTransactions = all.filter { !Self.transactionBodies($0.code).isEmpty }
        #expect(withTransactions.count >= 4, "found the transactions")
        let offending = withTransactions.filter { file in Self.transactionBodies(file.code).contains { $0.contains("HTTPError") } }
        #expect(offending.map(\.path) == [])
    }

    @Test("the dashboard builds no JSON reader and catches no HTTPError")
    func dashboardUsesDrafts() throws {
        let web = try Self.files(under: "Web")
        #expect(web.count >= 8, "found the pages")
        #expect(web.filter { $0.code.contains("AdminInput(") }.map(\.path) == [])
        #expect(web.filter { $0.code.contains("[String: JSONValue]") }.map(\.path) == [])
        let catching = web.filter { file in
            file.code.split(separator: "\n").contains { $0.contains("catch") && $0.contains("HTTPError") }
        }
        #expect(catching.map(\.path) == [])
    }
}
