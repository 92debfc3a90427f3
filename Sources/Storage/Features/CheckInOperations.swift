/// Check-ins at the door and their undoing. Reached as `session.checkIns`.
public struct CheckInOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Check-ins at the door and their undoing.
    public var checkIns: CheckInOperations { CheckInOperations(session: self) }
}
