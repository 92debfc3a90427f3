/// Announcements to an event's ticket holders. Reached as `session.announcements`.
public struct AnnouncementOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Announcements to an event's ticket holders.
    public var announcements: AnnouncementOperations { AnnouncementOperations(session: self) }
}
