/// Google Wallet: its outbox, its callbacks and the saved counts. Reached as `session.google`.
public struct GoogleWalletOperations: SessionOperations {
    let session: StoreSession
}

extension StoreSession {
    /// Google Wallet: its outbox, its callbacks and the saved counts.
    public var google: GoogleWalletOperations { GoogleWalletOperations(session: self) }
}
