/// Uploaded pass images. Reached as `session.images`.
public struct PassImageOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Uploaded pass images.
    public var images: PassImageOperations { PassImageOperations(session: self) }
}
