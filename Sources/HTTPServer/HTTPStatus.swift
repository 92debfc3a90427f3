/// An HTTP status code with its reason phrase. `Response.status` is a plain `Int`; this type gives
/// the common codes names (`HTTPStatus.notFound.code`) and maps any code to its phrase.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The numeric status code.
    public let code: Int

    /// Any status code, registered or not.
    public init(_ code: Int) {
        self.code = code
    }

    /// The standard reason phrase, or "Unknown" for unregistered codes.
    public var reasonPhrase: String { Self.reasonPhrase(for: code) }

    public var description: String { "\(code) \(reasonPhrase)" }

    /// 200 OK.
    public static let ok = HTTPStatus(200)
    /// 201 Created.
    public static let created = HTTPStatus(201)
    /// 202 Accepted.
    public static let accepted = HTTPStatus(202)
    /// 204 No Content.
    public static let noContent = HTTPStatus(204)
    /// 304 Not Modified.
    public static let notModified = HTTPStatus(304)
    /// 400 Bad Request.
    public static let badRequest = HTTPStatus(400)
    /// 401 Unauthorized.
    public static let unauthorized = HTTPStatus(401)
    /// 403 Forbidden.
    public static let forbidden = HTTPStatus(403)
    /// 404 Not Found.
    public static let notFound = HTTPStatus(404)
    /// 405 Method Not Allowed.
    public static let methodNotAllowed = HTTPStatus(405)
    /// 409 Conflict.
    public static let conflict = HTTPStatus(409)
    /// 410 Gone.
    public static let gone = HTTPStatus(410)
    /// 413 Content Too Large.
    public static let contentTooLarge = HTTPStatus(413)
    /// 415 Unsupported Media Type.
    public static let unsupportedMediaType = HTTPStatus(415)
    /// 422 Unprocessable Content.
    public static let unprocessableContent = HTTPStatus(422)
    /// 429 Too Many Requests.
    public static let tooManyRequests = HTTPStatus(429)
    /// 431 Request Header Fields Too Large.
    public static let requestHeaderFieldsTooLarge = HTTPStatus(431)
    /// 500 Internal Server Error.
    public static let internalServerError = HTTPStatus(500)
    /// 503 Service Unavailable.
    public static let serviceUnavailable = HTTPStatus(503)

    /// The reason phrase for `code` (RFC 9110 §15), "Unknown" when unregistered.
    public static func reasonPhrase(for code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Unknown"
        }
    }
}
