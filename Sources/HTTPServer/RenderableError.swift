/// An error that chooses its own HTTP answer. When a handler throws one, the server sends
/// `response` (by default the JSON body `{"error":{"code":"...","message":"..."}}` with `status`
/// and `headers`); any other error becomes a logged, generic 500.
///
/// Adopt it on errors of other modules too (in the module that joins them), so that a library's
/// error is translated to HTTP once, by its type and code, instead of by each handler:
///
/// ```swift
/// extension StoreError: RenderableError {
///     public var status: Int { code == .unavailable ? 503 : 500 }
///     public var errorCode: String { code == .unavailable ? "unavailable" : "internal_error" }
///     public var errorMessage: String { "..." }
/// }
/// ```
///
/// A rendered error with a 5xx status is written to the access log line (`error=`), and a 500 is
/// also logged at error level with the request id: both are the server's fault, and the client
/// sees neither the cause nor its description.
public protocol RenderableError: Error {
    /// The status to answer with (400–599).
    var status: Int { get }
    /// The machine-readable `code` of the JSON body, such as `not_found` or `unavailable`.
    var errorCode: String { get }
    /// The human-readable `message` of the JSON body. It reaches the client: never secrets or internals.
    var errorMessage: String { get }
    /// Extra response headers, such as `Retry-After` or `WWW-Authenticate`. None by default.
    var headers: HTTPHeaders { get }
    /// The whole response. By default the JSON error body with `status` and `headers`.
    var response: Response { get }
}

extension RenderableError {
    public var headers: HTTPHeaders { [:] }

    public var response: Response {
        var response = Response.error(status: status, code: errorCode, message: errorMessage)
        for (name, value) in headers {
            response.headers.add(name: name, value: value)
        }
        return response
    }
}
