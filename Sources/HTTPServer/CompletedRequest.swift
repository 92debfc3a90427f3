/// What the server reports about each answered request to a `RequestObserver` (for metrics).
public struct CompletedRequest: Sendable {
    /// The request method as sent.
    public var method: HTTPMethod
    /// The pattern of the route that handled it (`/v1/passes/:passTypeIdentifier/:serialNumber`),
    /// never the raw path; nil when no route matched (404, 405, a malformed path).
    public var route: String?
    /// The status sent.
    public var status: Int
    /// From the first sight of the request to its response being queued.
    public var duration: Duration
}

/// Called once per answered request on the connection's worker thread, after the response is
/// queued: keep it short and non-blocking.
public typealias RequestObserver = @Sendable (CompletedRequest) -> Void
