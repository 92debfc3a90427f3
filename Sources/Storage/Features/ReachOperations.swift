/// What each device was told and served, and the tallies built from it. Reached as `session.reach`.
public struct ReachOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// What each device was told and served, and the tallies built from it.
    public var reach: ReachOperations { ReachOperations(session: self) }
}
