import HTTPServer

/// The pure decisions behind the two "what changed?" questions a phone asks.
enum PassFreshness {
    /// `passesUpdatedSince`: absent, empty or unparsable means "everything" (revision 0). Phones send
    /// the tag we gave them verbatim, and send none on their first call or after a restore.
    static func revision(fromTag tag: String?) -> Int64 {
        guard let tag, let value = Int64(tag), value >= 0 else { return 0 }
        return value
    }

    /// Whether a pass last modified at `modifiedAt` needs sending to a client that sent
    /// `If-Modified-Since: ifModifiedSince`, at one-second precision. An unparsable date, or one in
    /// the future (a clock we cannot trust), is ignored: the pass is sent. Our own `Last-Modified`
    /// is not such a date even when it runs ahead of the clock: two changes inside one second move
    /// `modifiedAt` a second past `now`, and the phone holding it must still get its 304.
    static func isNotModified(modifiedAt: Int64, ifModifiedSince header: String?, now: Int64) -> Bool {
        guard let header, let since = HTTPDate.parse(header), since <= max(now, modifiedAt) else { return false }
        return modifiedAt <= since
    }
}
