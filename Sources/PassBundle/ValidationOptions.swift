/// What validation compares pass.json with.
public struct ValidationOptions: Sendable {
    /// Allow `http://` web service URLs (local development only; Wallet requires https).
    public var allowHTTPWebService: Bool
    public init(allowHTTPWebService: Bool = false) { self.allowHTTPWebService = allowHTTPWebService }
}
