public import Foundation

extension PassImageOperations {
    /// Stores `image` unless an image with its id is there already (ids are content addresses:
    /// the row there holds the same bytes). Returns the stored row.
    @discardableResult
    public func insertPassImage(_ image: PassImageRecord) throws -> PassImageRecord {
        _ = try execute("""
            INSERT INTO pass_images (id, kind, width, height, image_1x, image_2x, image_3x, created_at)
            VALUES (\(image.id), \(image.kind), \(Int64(image.width)), \(Int64(image.height)), \(image.image1x), \(image.image2x),
                \(image.image3x), \(image.createdAt.storageMillis))
            ON CONFLICT (id) DO NOTHING
            """)
        guard let stored = try passImage(id: image.id) else { throw StorageError(.backend, "inserted image not found") }
        return stored
    }

    /// The image with `id`, or nil.
    public func passImage(id: String) throws -> PassImageRecord? {
        try first("SELECT \(PassImageRecord.columns) FROM pass_images WHERE id = \(id)").map(PassImageRecord.init(row:))
    }

    /// The images of `ids` that exist, by id.
    public func passImages(ids: [String]) throws -> [String: PassImageRecord] {
        // A design names a handful of images: one primary-key read each.
        var images: [String: PassImageRecord] = [:]
        for id in Set(ids) {
            if let image = try passImage(id: id) { images[id] = image }
        }
        return images
    }

    /// The bytes of each image of `ids` that exists (its three PNGs together), by id, without
    /// reading the images.
    public func passImageByteCounts(ids: [String]) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for id in Set(ids) {
            let row = try first("""
                SELECT length(image_1x) + length(image_2x) + length(image_3x) AS bytes FROM pass_images WHERE id = \(id)
                """)
            if let row { counts[id] = try row.int("bytes") }
        }
        return counts
    }
}

extension TemplateOperations {
    /// Records `contentHash` as the template's; true when another hash was recorded before (the
    /// template changed since it was last seen: the caller re-pushes its events). The first
    /// record of a template is no change. Of two instances recording the same change, one gets true.
    public func recordTemplateVersion(name: String, contentHash: String, now: Date) throws -> Bool {
        try transaction {
            _ = try execute("""
                INSERT INTO template_versions (name, content_hash, updated_at) VALUES (\(name), \(contentHash), \(now.storageMillis))
                ON CONFLICT (name) DO NOTHING
                """)
            let changed = try execute("""
                UPDATE template_versions SET content_hash = \(contentHash), updated_at = \(now.storageMillis)
                WHERE name = \(name) AND content_hash <> \(contentHash)
                RETURNING name
                """)
            return !changed.isEmpty
        }
    }

    /// Starts a re-push job for every event using `template` that is not archived and has no
    /// job running or waiting; returns the jobs started.
    public func repushEvents(template: String, now: Date) throws -> [Job] {
        try transaction {
            let events = try execute("""
                SELECT id FROM events WHERE template = \(template) AND archived_at IS NULL
                AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.event_id = events.id AND jobs.kind = \(Job.repushKind) AND jobs.state IN ('pending', 'running'))
                ORDER BY id
                """).map { try $0.string("id") }
            return try events.map { try session.jobs.createJob(kind: Job.repushKind, eventID: $0, now: now) }
        }
    }

    /// The templates events use, sorted.
    public func templatesInUse() throws -> [String] {
        try execute("SELECT DISTINCT template FROM events ORDER BY template").map { try $0.string("template") }
    }
}
