// Version 16: an uploaded template's field mapping, kept beside its archive.
//
// A template uploaded through the admin API is a Pass Designer archive (`files`, kept as uploaded)
// plus the choice of which ticket data each of its fields shows (`mapping`, a JSON object from a
// field's key to its source, as the application encodes it). The mapping changes on its own (the
// organizer picks another source for a field) without the archive being sent again, so it is a
// column of its own rather than part of the blob.
//
// `source_hash` is a SHA-256 over the archive and the mapping, set with either: every instance
// keeps the template it built from a row and compares this short value, read by primary key, with
// the one it built from before serving a pass, so a replaced archive or a changed mapping is seen
// by every instance at once, without reading the archive again.

extension Migration {
    static let templateMappings = Migration(
        version: 16,
        name: "uploaded templates: the field mapping and a hash of archive and mapping",
        sql: """
        ALTER TABLE pass_templates ADD COLUMN mapping TEXT NOT NULL DEFAULT '{}';
        ALTER TABLE pass_templates ADD COLUMN source_hash TEXT NOT NULL DEFAULT '';
        """
    )
}
