/// Counts of an event's attendance over time. Reached as `session.attendance`.
public struct AttendanceOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Counts of an event's attendance over time.
    public var attendance: AttendanceOperations { AttendanceOperations(session: self) }
}
