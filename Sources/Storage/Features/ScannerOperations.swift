/// Door staff's scanner access codes and sessions. Reached as `session.scanners`.
public struct ScannerOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Door staff's scanner access codes and sessions.
    public var scanners: ScannerOperations { ScannerOperations(session: self) }
}
