/// Device registrations for passes' updates. Reached as `session.registrations`.
public struct RegistrationOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Device registrations for passes' updates.
    public var registrations: RegistrationOperations { RegistrationOperations(session: self) }
}
