// Download links can be rotated: each pass keeps the nonce its current link token was derived
// with. Existing passes get 0, the derivation without a nonce, so every link already handed out
// keeps working.

extension Migration {
    static let downloadNonce = Migration(version: 4, name: "download link nonce") { db in
        "ALTER TABLE passes ADD COLUMN download_nonce \(db.bigint) NOT NULL DEFAULT 0;"
    }
}
