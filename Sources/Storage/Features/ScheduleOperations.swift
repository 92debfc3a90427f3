/// Scheduled changes to events. Reached as `session.schedule`.
public struct ScheduleOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Scheduled changes to events.
    public var schedule: ScheduleOperations { ScheduleOperations(session: self) }
}
