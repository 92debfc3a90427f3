import ByteEncoding
import Certificates
import Foundation
import PassBundle
import Storage
import Synchronization

/// The templates passes are built from, by name: the folders under PASSES_DIR (`TemplateStore`,
/// which reloads an edited folder) and the Pass Designer templates uploaded through the admin API
/// (`pass_templates`), which every instance serves from the database.
///
/// A name is a folder's when `PASSES_DIR/<name>/pass.json` exists (an upload cannot take such a
/// name), else an uploaded template's. An uploaded template is built once per archive and
/// mapping and kept: each lookup reads the row's `source_hash` (one primary-key read, no archive)
/// and builds again only when it differs from the hash the kept template was built from. A
/// replaced archive or a new mapping, saved on any instance, is therefore what every instance
/// builds passes with from its next lookup on, before the re-push that follows it reaches a phone.
/// Inside a transaction the lookup reads on the transaction's own session (nested sessions on a
/// thread share it), so a change being saved is what it is validated with.
///
/// Thread-safe: the kept templates sit behind a `Mutex` that is never held while the database is
/// read or a template built; two threads missing at once both build (the same template).
final class TemplateLibrary: Sendable {
    /// Where a template comes from.
    enum Origin: String, Sendable {
        /// A folder under PASSES_DIR.
        case file
        /// A Pass Designer template uploaded through the admin API.
        case uploaded
    }

    /// An uploaded template as built from its row.
    struct Uploaded: Sendable {
        let name: String
        /// The row's `source_hash` the template was built from.
        let sourceHash: String
        /// The SHA-256 of the archive (a new mapping's source hash is made from it).
        let archiveHash: [UInt8]
        /// The designer's template as read from the archive (its fields, samples and notes).
        let designer: PassDesignerTemplate
        /// Which ticket data each field shows (fields not named keep the designer's value).
        let mapping: [String: FieldSource]
        let template: Template
        let updatedAt: Date
    }

    /// The folders under PASSES_DIR.
    let files: TemplateStore
    /// Where uploaded templates are stored; nil serves folders only.
    private let store: (any Store)?
    private let kept = Mutex<[String: Uploaded]>([:])
    /// What `isFileTemplate` last answered for each name, and when: every pass built looks its
    /// template up, and a `stat` per pass cost more than rendering its barcode. An answer is used
    /// for `files.checkInterval`, as long as the folder store itself goes without looking at a
    /// folder, so a folder added or removed is noticed as soon as an edit of one would be.
    private let folderAnswers = Mutex<[String: (isFolder: Bool, at: ContinuousClock.Instant)]>([:])

    /// How many uploaded templates are kept built at once; past it the kept ones are dropped (and
    /// built again on their next use).
    static let keptLimit = 64
    /// The bounds an uploaded archive must stay within.
    static let archiveLimits = ArchiveLimits(maxUncompressedSize: 20 << 20, maxEntries: 200)

    init(files: TemplateStore, store: (any Store)?) {
        self.files = files
        self.store = store
    }

    /// PASSES_DIR.
    var root: String { files.root }

    /// Whether `name` is a folder template: `PASSES_DIR/<name>/pass.json` exists.
    func isFileTemplate(_ name: String) -> Bool {
        guard Self.isSafeFolderName(name) else { return false }
        return FileManager.default.fileExists(atPath: root + "/" + name + "/pass.json")
    }

    /// `isFileTemplate(name)`, as answered within the last `files.checkInterval`.
    private func isRecentlyFileTemplate(_ name: String) -> Bool {
        let interval = files.checkInterval
        guard interval > .zero else { return isFileTemplate(name) }
        let now = ContinuousClock.now
        if let known = folderAnswers.withLock({ $0[name] }), now - known.at < interval { return known.isFolder }
        let answer = isFileTemplate(name)
        folderAnswers.withLock { answers in
            // Names come from events' templates, a handful; the bound is for a stream of unknown ones.
            if answers.count >= Self.keptLimit { answers.removeAll() }
            answers[name] = (answer, now)
        }
        return answer
    }

    /// The names of the folder templates, sorted.
    var fileTemplateNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter(isFileTemplate).sorted()
    }

    /// The template `name`: a folder's (loaded, reloaded when edited) or an uploaded one's (built
    /// from its row when the row changed). Throws `PassBundleError` when there is none or it does
    /// not load, a storage error when the database does not answer.
    func template(named name: String) throws -> Template {
        if store == nil || isRecentlyFileTemplate(name) { return try files.template(named: name) }
        guard let uploaded = try uploaded(named: name) else {
            throw PassBundleError(.templateUnreadable, "no template named \(name)")
        }
        return uploaded.template
    }

    /// Why the folder template `name` does not load, while it does not (see `TemplateStore`).
    func loadError(named name: String) -> PassBundleError? {
        files.loadError(named: name)
    }

    /// The uploaded template `name`, built from its row; nil when there is none (or `name` is a
    /// folder's).
    func uploaded(named name: String) throws -> Uploaded? {
        guard let store, !isFileTemplate(name) else { return nil }
        guard let version = try store.withSession(.read, { try $0.templates.storedTemplateVersion(name: name) }) else {
            kept.withLock { $0[name] = nil }
            return nil
        }
        if let uploaded = kept.withLock({ $0[name] }), uploaded.sourceHash == version { return uploaded }
        guard let row = try store.withSession(.read, { try $0.templates.storedTemplate(name: name) }) else { return nil }
        return try keep(row)
    }

    /// Every uploaded template, sorted by name: one read of the names and hashes, one of the rows
    /// of those not kept as they are.
    func uploadedTemplates() throws -> [Uploaded] {
        guard let store else { return [] }
        let versions = try store.withSession(.read) { try $0.templates.storedTemplateVersions() }.filter { !isFileTemplate($0.name) }
        let current = kept.withLock { kept in versions.compactMap { version in kept[version.name].flatMap { $0.sourceHash == version.sourceHash ? $0 : nil } } }
        let missing = Set(versions.map(\.name)).subtracting(current.map(\.name))
        let rows = try store.withSession(.read) { try $0.templates.storedTemplates(names: Array(missing)) }
        var built = current
        for row in rows.values {
            // A row that no longer builds (cannot happen for one saved through the API) is left out of the list.
            if let uploaded = try? keep(row) { built.append(uploaded) }
        }
        return built.sorted { $0.name < $1.name }
    }

    /// Builds the template of `row` and keeps it.
    private func keep(_ row: StoredTemplate) throws -> Uploaded {
        let designer = try PassDesignerTemplate(archive: row.files, limits: Self.archiveLimits)
        let mapping = try Self.decodeMapping(row.mapping)
        let uploaded = Uploaded(
            name: row.name, sourceHash: row.sourceHash, archiveHash: try Self.archiveHash(row.files), designer: designer, mapping: mapping,
            template: try designer.template(name: row.name, mapping: mapping), updatedAt: row.updatedAt
        )
        remember(uploaded)
        return uploaded
    }

    /// Keeps `uploaded`, built from a row just saved, so the next lookup need not build it again.
    func remember(_ uploaded: Uploaded) {
        kept.withLock { kept in
            if kept[uploaded.name] == nil && kept.count >= Self.keptLimit { kept.removeAll() }
            kept[uploaded.name] = uploaded
        }
    }

    // MARK: What a row holds

    /// The mapping as stored: a JSON object from field key to source (`{"holder":"attendeeName"}`),
    /// keys sorted, so one mapping is always the same text.
    static func encodeMapping(_ mapping: [String: FieldSource]) -> String {
        String(decoding: JSONValue.object(mapping.mapValues { .string($0.rawValue) }).serialized, as: UTF8.self)
    }

    /// A stored mapping; a source this server does not know is an error (the row is not built).
    static func decodeMapping(_ text: String) throws -> [String: FieldSource] {
        guard case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw PassServiceError("a stored template mapping is not a JSON object")
        }
        var mapping: [String: FieldSource] = [:]
        for (key, value) in members {
            guard case .string(let raw) = value, let source = FieldSource(rawValue: raw) else {
                throw PassServiceError("a stored template mapping names an unknown source for \(key)")
            }
            mapping[key] = source
        }
        return mapping
    }

    /// The SHA-256 of an archive.
    static func archiveHash(_ archive: [UInt8]) throws -> [UInt8] {
        try Digest.sha256().hash(archive)
    }

    /// The row's `source_hash`: a SHA-256 (hex) over the archive's SHA-256 and the stored mapping.
    static func sourceHash(archiveHash: [UInt8], mapping: String) throws -> String {
        Hex.encode(try Digest.sha256().hash(archiveHash + Array(mapping.utf8)))
    }

    /// Whether `name` can name a folder under PASSES_DIR (nothing that leaves it).
    private static func isSafeFolderName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && !name.contains("\\") && !name.hasPrefix(".") && !name.contains("\u{0}")
    }
}
