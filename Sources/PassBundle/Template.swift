import Foundation

/// A pass template: pass.json with `{{placeholders}}` plus images and localizations, read once.
///
/// A directory such as `Passes/event-ticket/` holds `pass.json`, `icon.png` (required) and other
/// images, `<lang>.lproj/pass.strings`, and optionally `fields.json` (see `TemplateField`) and
/// email texts under `mail/` (kept apart: `mailFiles`). Loading reads and hashes every file once, so building
/// a bundle only renders pass.json; keep the `Template` (or a `TemplateStore`) and reuse it.
public struct Template: Sendable {
    /// One static file of the bundle: its manifest entry. The bytes live on, deflated, in
    /// `archive`.
    struct File: Sendable {
        let path: String
        let sha1: String
    }

    /// The template's name (its directory name).
    public let name: String
    /// The extra per-ticket fields declared in `fields.json` (none without that file), in order.
    public let fields: [TemplateField]
    /// The files under `mail/` (the texts of the email that brings an attendee the ticket), by
    /// path below `mail/` (`en/subject.txt`). They are no part of the pass.
    public let mailFiles: [String: [UInt8]]
    /// pass.json as parsed, placeholders unresolved.
    public let passJSON: JSONValue
    /// pass.json compiled for fast rendering.
    let compiled: TemplateNode
    /// Every other file, sorted by path.
    let files: [File]
    /// `files` deflated once and laid out as the first run of every bundle's archive
    /// (BundleArchive.swift), in the same order.
    let archive: TemplateArchive
    /// manifest.json around pass.json's hash: every file's entry is known when the template loads,
    /// so a pass writes `manifestHalves.before`, pass.json's SHA-1 and `manifestHalves.after`.
    let manifestHalves: (before: [UInt8], after: [UInt8])
    /// Every file as read, for templates derived from this one (`designed(images:)`).
    let sourceFiles: [String: [UInt8]]
    /// A SHA-256 over everything that goes into a pass (see Template+ContentHash.swift): two
    /// loads of a template give the same hash exactly when their passes would be the same.
    public let contentHash: String

    /// Relative paths of the static files (`icon.png`, `en.lproj/pass.strings`, …), sorted.
    public var filePaths: [String] { files.map(\.path) }

    /// The bytes of the static file at `path` (`logo@2x.png`), or nil when there is none.
    public func file(at path: String) -> [UInt8]? { sourceFiles[path] }

    /// The text of `<language>.lproj/pass.strings` (UTF-8 or UTF-16), or nil without one.
    public func passStrings(language: String) -> String? {
        file(at: "\(language).lproj/pass.strings").flatMap(PassStrings.decode)
    }

    /// The label of an announcement's back field on this template's passes
    /// (`TicketData.announcementLabel`). Worked out once, when the template loads: every pass
    /// rendered asks for it.
    public let announcementLabel: String

    /// Languages with an `.lproj` folder, sorted (`["en", "ja"]`).
    public var localizations: [String] { Self.localizations(of: files) }

    private static func localizations(of files: [File]) -> [String] {
        Array(Set(files.compactMap { file in
            file.path.split(separator: "/").first.flatMap { $0.hasSuffix(".lproj") ? String($0.dropLast(6)) : nil }
        })).sorted()
    }

    /// Builds a template from in-memory files; `files` maps relative paths to bytes and must
    /// include `pass.json` and `icon.png`.
    public init(name: String, files: [String: [UInt8]]) throws(PassBundleError) {
        guard let passBytes = files["pass.json"] else {
            throw PassBundleError(.invalidTemplate, "template \(name) has no pass.json")
        }
        guard files["icon.png"] != nil else {
            throw PassBundleError(.invalidTemplate, "template \(name) has no icon.png (Wallet requires it)")
        }
        for reserved in ["manifest.json", "signature"] where files[reserved] != nil {
            throw PassBundleError(.invalidTemplate, "template \(name) must not contain \(reserved): it is generated")
        }
        for path in files.keys where path.hasPrefix("/") || path.split(separator: "/").contains("..") {
            throw PassBundleError(.invalidTemplate, "template \(name) has an unsafe file path \(path)")
        }
        do {
            passJSON = try JSONDecoder().decode(JSONValue.self, from: Data(passBytes))
        } catch {
            throw PassBundleError(.invalidTemplate, "template \(name): pass.json is not valid JSON", underlying: error)
        }
        guard case .object = passJSON else {
            throw PassBundleError(.invalidTemplate, "template \(name): pass.json must be a JSON object")
        }
        self.name = name
        sourceFiles = files
        fields = try files[TemplateField.fileName].map { bytes throws(PassBundleError) in try TemplateField.decode(bytes, template: name) } ?? []
        compiled = TemplateNode.compile(passJSON)
        mailFiles = Dictionary(uniqueKeysWithValues: files.compactMap { path, bytes in
            path.hasPrefix(Self.mailFolder) ? (String(path.dropFirst(Self.mailFolder.count)), bytes) : nil
        })
        // fields.json describes the admin API's input and mail/ holds email texts: no part of the pass.
        let staticFiles = files.filter { $0.key != "pass.json" && $0.key != TemplateField.fileName && !$0.key.hasPrefix(Self.mailFolder) }
            .sorted { $0.key < $1.key }
        self.files = try staticFiles.map { (path, bytes) throws(PassBundleError) in File(path: path, sha1: try SHA1.hex(bytes)) }
        archive = try TemplateArchive(try ZipWriter.compress(staticFiles.map { ($0.key, $0.value) }))
        manifestHalves = try Self.manifestHalves(self.files)
        contentHash = try Self.contentHash(passJSON: passJSON, fieldsJSON: files[TemplateField.fileName], files: self.files)
        announcementLabel = TicketData.announcementLabel(localizedStrings: Self.localizations(of: self.files).compactMap { language in
            files["\(language).lproj/pass.strings"].flatMap(PassStrings.decode)
        })
    }

    /// manifest.json (keys sorted, as `JSONValue` writes an object) cut where pass.json's hash goes.
    static func manifestHalves(_ files: [File]) throws(PassBundleError) -> (before: [UInt8], after: [UInt8]) {
        let placeholder = String(repeating: "0", count: 40)
        var entries = Dictionary(uniqueKeysWithValues: files.map { ($0.path, JSONValue.string($0.sha1)) })
        entries["pass.json"] = .string(placeholder)
        let whole = JSONValue.object(entries).serialized
        let marker = Array(#""pass.json":""#.utf8) + Array(placeholder.utf8)
        guard let start = whole.indices.first(where: { whole[$0...].starts(with: marker) }) else {
            throw PassBundleError(.invalidTemplate, "cannot lay out manifest.json")
        }
        let cut = start + marker.count - placeholder.utf8.count
        return (Array(whole[..<cut]), Array(whole[(cut + placeholder.utf8.count)...]))
    }

    /// manifest.json of a pass whose pass.json has the SHA-1 `passJSONHash` (40 hex digits).
    func manifest(passJSONHash: String) -> [UInt8] {
        var manifest = manifestHalves.before
        manifest.reserveCapacity(manifestHalves.before.count + 40 + manifestHalves.after.count)
        manifest += passJSONHash.utf8
        manifest += manifestHalves.after
        return manifest
    }

    /// The folder of email texts inside a template.
    static let mailFolder = "mail/"

    /// Reads a template directory (hidden files such as `.DS_Store` are skipped).
    public static func load(directory: String) throws(PassBundleError) -> Template {
        let root = URL(fileURLWithPath: directory).standardizedFileURL
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw PassBundleError(.templateUnreadable, "template directory \(directory) does not exist")
        }
        var files: [String: [UInt8]] = [:]
        do {
            for relative in try manager.subpathsOfDirectory(atPath: root.path).sorted() {
                let components = relative.split(separator: "/")
                if components.contains(where: { $0.hasPrefix(".") }) { continue }
                let url = root.appendingPathComponent(relative)
                var isDir: ObjCBool = false
                guard manager.fileExists(atPath: url.path, isDirectory: &isDir), !isDir.boolValue else { continue }
                files[relative] = [UInt8](try Data(contentsOf: url))
            }
        } catch {
            throw PassBundleError(.templateUnreadable, "cannot read template directory \(directory)", underlying: error)
        }
        return try Template(name: root.lastPathComponent, files: files)
    }
}
