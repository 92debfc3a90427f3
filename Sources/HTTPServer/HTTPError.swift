/// An error that knows its HTTP status. Thrown by a handler, the server renders it as
/// `{"error":{"code":"...","message":"..."}}` with its status and extra headers.
public struct HTTPError: RenderableError, Sendable, CustomStringConvertible {
    /// The HTTP status code to answer with.
    public var status: Int
    /// A stable, machine-readable code such as `not_found`.
    public var code: String
    /// A human-readable message sent to the client; never put secrets here.
    public var message: String
    /// Extra response headers (for example `Retry-After` or `WWW-Authenticate`).
    public var headers: HTTPHeaders

    /// An error answered with `status` and the JSON body built from `code` and `message`.
    public init(status: Int, code: String, message: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var errorCode: String { code }
    public var errorMessage: String { message }

    public var description: String { "HTTPError(\(status) \(code): \(message))" }

    /// 400 with code `bad_request`.
    public static func badRequest(_ message: String, code: String = "bad_request") -> HTTPError {
        HTTPError(status: 400, code: code, message: message)
    }

    /// 404 with code `not_found`.
    public static func notFound(_ message: String = "No such resource.") -> HTTPError {
        HTTPError(status: 404, code: "not_found", message: message)
    }

    /// 413 with code `payload_too_large`.
    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(status: 413, code: "payload_too_large", message: "The request body exceeds \(limit) bytes.")
    }

    /// 500 with a generic message; the real cause belongs in the log, not in the response.
    public static let internalError = HTTPError(
        status: 500, code: "internal_error", message: "An unexpected error occurred."
    )
}
