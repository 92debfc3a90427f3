public import Foundation

/// Announcements (migration 24). What the passes carry is the event's own row
/// (`Event.announcement`, changed with `updateEvent`); these rows are the history the organizers
/// see: every announcement sent, its job (its reach) and its withdrawal.
extension AnnouncementOperations {
    public func insertAnnouncement(_ announcement: Announcement) throws {
        try execute("""
            INSERT INTO announcements (id, event_id, message, notify, sent_at, job_id, withdrawn_at, withdraw_job_id)
            VALUES (\(announcement.id), \(announcement.eventID), \(announcement.message), \(announcement.notify ? 1 : 0),
                \(announcement.sentAt.storageMillis), \(announcement.jobID), \(announcement.withdrawnAt?.storageMillis), \(announcement.withdrawJobID))
            """)
    }

    public func announcement(id: String) throws -> Announcement? {
        try first("SELECT \(Announcement.columns) FROM announcements WHERE id = \(id)").map(Announcement.init(row:))
    }

    /// The announcement locked for a change (`FOR UPDATE`; SQLite's writer), or nil.
    public func lockedAnnouncement(id: String) throws -> Announcement? {
        try first("SELECT \(Announcement.columns) FROM announcements WHERE id = \(id)\(unsafeRaw: forUpdate)").map(Announcement.init(row:))
    }

    /// The event's announcements, newest first.
    public func announcements(eventID: String, limit: Int = 100) throws -> [Announcement] {
        try execute("""
            SELECT \(Announcement.columns) FROM announcements WHERE event_id = \(eventID) ORDER BY sent_at DESC, id LIMIT \(limit)
            """).map(Announcement.init(row:))
    }

    /// When the event's notifying announcements were sent, from `since` on.
    public func notifyingAnnouncementTimes(eventID: String, since: Date) throws -> [Date] {
        try execute("""
            SELECT sent_at FROM announcements WHERE event_id = \(eventID) AND notify = 1 AND sent_at >= \(since.storageMillis) ORDER BY sent_at
            """).map { try $0.date("sent_at") }
    }

    /// Marks the announcement withdrawn at `now`, with the job that took it off the passes.
    public func markWithdrawn(announcementID: String, jobID: String?, now: Date) throws -> Announcement {
        guard let row = try first("""
            UPDATE announcements SET withdrawn_at = \(now.storageMillis), withdraw_job_id = \(jobID)
            WHERE id = \(announcementID) RETURNING \(Announcement.columns)
            """)
        else { throw StorageError(.notFound, "no such announcement") }
        return try Announcement(row: row)
    }
}
