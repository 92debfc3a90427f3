// Public imports: a conformance is as visible as the type and the protocol it joins.
public import HTTPServer
public import Storage

/// How a storage failure that escapes a handler is answered. A database that is down, restarting
/// or busy (`.unavailable`, `.timeout`) is a 503 `unavailable` with `Retry-After`: the request was
/// fine and may be sent again shortly. Any other storage error is a bug or a broken database, a
/// generic 500 that the server logs. Either way the client sees no SQL, SQLSTATE or driver text.
///
/// Handlers that expect a particular code (`.conflict`, `.notFound`) catch it and throw their own
/// `HTTPError`; this is for everything they let through.
extension StorageError: RenderableError {
    /// Seconds a client is asked to wait before trying again (`Retry-After`).
    static let retryAfterSeconds = 5

    public var status: Int { isTransient ? 503 : 500 }

    public var errorCode: String { isTransient ? "unavailable" : HTTPError.internalError.code }

    public var errorMessage: String {
        switch code {
        case .unavailable: "The database is unavailable; try again shortly."
        case .timeout: "The database is busy; try again shortly."
        default: HTTPError.internalError.message
        }
    }

    public var headers: HTTPHeaders {
        isTransient ? ["Retry-After": String(Self.retryAfterSeconds)] : [:]
    }
}
