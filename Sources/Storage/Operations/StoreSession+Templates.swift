public import Foundation

/// A template uploaded through the admin API, as stored (`pass_templates`).
public struct StoredTemplate: Sendable, Equatable {
    public var name: String
    /// The archive as uploaded (a zipped Pass Designer template).
    public var files: [UInt8]
    /// Which ticket data each field shows, as the application encodes it.
    public var mapping: String
    /// A hash of `files` and `mapping` that changes with either (the application's).
    public var sourceHash: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(name: String, files: [UInt8], mapping: String, sourceHash: String, createdAt: Date, updatedAt: Date) {
        self.name = name
        self.files = files
        self.mapping = mapping
        self.sourceHash = sourceHash
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    init(row: SQLRow) throws {
        self.init(
            name: try row.string("name"), files: try row.bytes("files"), mapping: try row.string("mapping"), sourceHash: try row.string("source_hash"),
            createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at")
        )
    }

    static let columns: SQLQuery = "name, files, mapping, source_hash, created_at, updated_at"
}

extension TemplateOperations {
    /// Stores the template `name`, replacing the archive and mapping of one of that name (its
    /// creation time stays).
    public func saveTemplate(name: String, files: [UInt8], mapping: String, sourceHash: String, now: Date) throws {
        _ = try execute("""
            INSERT INTO pass_templates (name, files, mapping, source_hash, created_at, updated_at)
            VALUES (\(name), \(files), \(mapping), \(sourceHash), \(now.storageMillis), \(now.storageMillis))
            ON CONFLICT (name) DO UPDATE SET files = excluded.files, mapping = excluded.mapping, source_hash = excluded.source_hash,
                updated_at = excluded.updated_at
            """)
    }

    /// Replaces the mapping of the template `name` while its source hash is still `expected` (the
    /// archive the mapping was made for); false when there is no such template or it changed.
    public func setTemplateMapping(name: String, expected: String, mapping: String, sourceHash: String, now: Date) throws -> Bool {
        try !execute("""
            UPDATE pass_templates SET mapping = \(mapping), source_hash = \(sourceHash), updated_at = \(now.storageMillis)
            WHERE name = \(name) AND source_hash = \(expected) RETURNING name
            """).isEmpty
    }

    /// The mapping and source hash of the uploaded template `name` (the archive not read), or nil.
    public func storedTemplateMapping(name: String) throws -> (mapping: String, sourceHash: String)? {
        try first("SELECT mapping, source_hash FROM pass_templates WHERE name = \(name)").map { (try $0.string("mapping"), try $0.string("source_hash")) }
    }

    /// The uploaded template `name`, or nil.
    public func storedTemplate(name: String) throws -> StoredTemplate? {
        try first("SELECT \(StoredTemplate.columns) FROM pass_templates WHERE name = \(name)").map(StoredTemplate.init(row:))
    }

    /// The uploaded templates of `names` that exist, by name, read in one statement.
    public func storedTemplates(names: [String]) throws -> [String: StoredTemplate] {
        guard !names.isEmpty else { return [:] }
        let rows = try execute("SELECT \(StoredTemplate.columns) FROM pass_templates WHERE name IN \(SQLQuery.list(Array(Set(names)).sorted()))")
        var templates: [String: StoredTemplate] = [:]
        for row in rows {
            let template = try StoredTemplate(row: row)
            templates[template.name] = template
        }
        return templates
    }

    /// The source hash of the uploaded template `name` (one primary-key read, no archive), or nil
    /// when there is none.
    public func storedTemplateVersion(name: String) throws -> String? {
        try first("SELECT source_hash FROM pass_templates WHERE name = \(name)").map { try $0.string("source_hash") }
    }

    /// Every uploaded template's name with its source hash, sorted by name.
    public func storedTemplateVersions() throws -> [(name: String, sourceHash: String)] {
        try execute("SELECT name, source_hash FROM pass_templates ORDER BY name").map { (try $0.string("name"), try $0.string("source_hash")) }
    }

    /// The names of the uploaded templates, sorted.
    public func storedTemplateNames() throws -> [String] {
        try execute("SELECT name FROM pass_templates ORDER BY name").map { try $0.string("name") }
    }
}
