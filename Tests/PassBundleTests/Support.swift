import Certificates
import Foundation
import PassBundle
import PassServerTesting
import Synchronization
import Testing


/// Paths and values shared by the bundle tests.
enum Fixture {
    /// The repository root, found from this file's path.
    static let repositoryRoot: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static var templateDirectory: String { repositoryRoot + "/Passes/event-ticket" }

    static func template() throws -> Template { try Template.load(directory: templateDirectory) }

    /// The default template's `fields.json`, for templates built in memory from its pass.json.
    static func fieldsJSON() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: templateDirectory + "/fields.json"))) }

    static func certificates() throws -> TestCertificates {
        try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "passbundle"))
    }

    /// 2026-03-04 05:06:07 UTC.
    static let signingTime = Date(timeIntervalSince1970: 1_772_600_767)

    static func ticket(attendee: String = "Ada Lovelace", seat: String? = "B-7", cancelled: Bool = false) -> TicketData {
        TicketData(
            serialNumber: "T-\(UUID().uuidString.prefix(8))",
            authenticationToken: "0123456789abcdef0123",
            webServiceURL: "https://passes.example.com/",
            organizationName: "Example Events",
            description: "Ticket for Swift Night",
            eventName: "Swift Night",
            venue: "Hall 1, Tokyo",
            startsAt: Date(timeIntervalSince1970: 1_780_000_000),
            endsAt: Date(timeIntervalSince1970: 1_780_010_800),
            timeZone: "Asia/Tokyo",
            attendeeName: attendee,
            seat: seat,
            cancelled: cancelled
        )
    }

    /// A fresh directory for one test.
    static func directory(_ prefix: String) throws -> String { try TestCertificates.temporaryDirectory(prefix: prefix) }
}

/// An unzipped bundle and the checks Wallet performs on it.
struct UnpackedBundle {
    let directory: String

    /// Writes the archive and unzips it into a new directory.
    init(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let base = try Fixture.directory("unpacked")
        let archive = base + "/pass.pkpass"
        try Data(bytes).write(to: URL(fileURLWithPath: archive))
        directory = base + "/files"
        let result = try run("unzip", ["-q", archive, "-d", directory])
        #expect(result.status == 0, "unzip failed: \(result.error)", sourceLocation: sourceLocation)
    }

    /// Relative paths of every file.
    var files: [String] {
        (FileManager.default.subpaths(atPath: directory) ?? []).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.sorted()
    }

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path))) }

    func manifest() throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: Data(bytes("manifest.json")))
    }

    func passJSON(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(bytes("pass.json")))
        return try #require(object as? [String: Any], sourceLocation: sourceLocation)
    }

    /// Problems with the manifest: a missing or extra file, or a hash that does not match.
    func manifestProblems() throws -> [String] {
        let manifest = try manifest()
        let content = files.filter { $0 != "manifest.json" && $0 != "signature" }
        var problems: [String] = []
        if Set(manifest.keys) != Set(content) { problems.append("manifest lists \(manifest.keys.sorted()) but bundle has \(content)") }
        let sums = try run("sha1sum", content, in: directory)
        // Without a hash line for every file nothing below would be compared.
        if sums.status != 0 { problems.append("sha1sum failed: \(sums.error)") }
        var hashed: Set<String> = []
        for line in sums.output.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else {
                problems.append("unreadable sha1sum line: \(line)")
                continue
            }
            let path = String(parts[1].trimmingCharacters(in: .whitespaces).drop { $0 == "*" })
            hashed.insert(path)
            if manifest[path] != String(parts[0]) { problems.append("hash of \(path) differs") }
        }
        if hashed != Set(content) { problems.append("sha1sum hashed \(hashed.sorted()) of \(content)") }
        return problems
    }

    /// `openssl smime -verify` of the signature over manifest.json against the test root.
    func verifySignature(root: String, signerOut: String? = nil) throws -> CommandResult {
        var arguments = ["smime", "-verify", "-binary", "-inform", "DER", "-in", directory + "/signature",
                         "-content", directory + "/manifest.json", "-CAfile", root, "-purpose", "any", "-out", "/dev/null"]
        if let signerOut { arguments += ["-signer", signerOut] }
        return try run("openssl", arguments)
    }

    /// True when Wallet's checks pass: manifest complete and matching, signature valid.
    func verifies(root: String) throws -> Bool {
        try manifestProblems().isEmpty && verifySignature(root: root).status == 0
    }
}

/// Collects results from concurrent workers.
final class ResultBox: Sendable {
    private let storage = Mutex<[Result<[UInt8], any Error>]>([])
    func append(_ result: Result<[UInt8], any Error>) { storage.withLock { $0.append(result) } }
    var values: [Result<[UInt8], any Error>] { storage.withLock { $0 } }
}
