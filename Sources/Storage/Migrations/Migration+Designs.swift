// Version 15: each event's own pass design, the images designs use, and uploaded templates.
//
// `events.design` holds the event's design as the application encodes it (colours, logo text,
// the images it uses by id, the event details Wallet shows); NULL is the template as it is.
// Changing it is an event change like any other: a new revision and a re-push job, so every pass
// of the event gets a new revision, a new `Last-Modified` and a push.
//
// `pass_images` holds uploaded images once each, scaled to @1x, @2x and @3x, under the SHA-256 of
// what was produced (`id`): two events using the same logo share one row, and a design names its
// images by id. Rows are never changed; an image no design names any more stays (a few hundred
// kilobytes each) until an operator deletes it.
//
// `pass_templates` holds templates uploaded through the admin API (a Pass Designer template mapped
// to ticket data), beside the ones in the `Passes/` folder: `files` is the template's files as the
// application encodes them. Every instance serves them from here.
//
// `template_versions` holds the content hash of each template as last seen by any instance: the
// instance that first sees a template's files change (an edit in `Passes/`) records the new hash
// and starts the re-push of the events using it, so phones fetch the new design; the others find
// the hash recorded and do nothing.

extension Migration {
    static let designs = Migration(version: 15, name: "event designs, pass images, uploaded templates and template versions") { db in
        """
        ALTER TABLE events ADD COLUMN design TEXT;
        CREATE TABLE pass_images (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            image_1x \(db.bytes) NOT NULL,
            image_2x \(db.bytes) NOT NULL,
            image_3x \(db.bytes) NOT NULL,
            created_at \(db.bigint) NOT NULL
        );
        CREATE TABLE pass_templates (
            name TEXT PRIMARY KEY,
            files \(db.bytes) NOT NULL,
            created_at \(db.bigint) NOT NULL,
            updated_at \(db.bigint) NOT NULL
        );
        CREATE TABLE template_versions (
            name TEXT PRIMARY KEY,
            content_hash TEXT NOT NULL,
            updated_at \(db.bigint) NOT NULL
        );
        """
    }
}
