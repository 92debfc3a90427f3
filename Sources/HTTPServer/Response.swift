public import ByteEncoding
public import Foundation

/// An HTTP response: status, ordered headers and a complete body, or a body streamed piece by
/// piece (`stream`).
///
/// `Content-Length` is computed by the server from `body`; `Date` is added by libmicrohttpd.
public struct Response: Sendable {
    /// The final status code (200–599; anything else is answered as 500).
    public var status: Int
    /// Response headers; `X-Request-ID` is set by the server, `Content-Length` is computed.
    public var headers: HTTPHeaders
    /// The complete body (not sent for HEAD requests).
    public var body: [UInt8]
    /// When set, the body is produced by this stream while it is sent (chunked, no
    /// `Content-Length`), and `body` is ignored.
    public var stream: BodyStream?
    /// When not empty, the body is these runs of bytes one after the other, sent from where they
    /// are without being joined or copied (a signed pass: its template's files, shared by every
    /// pass, then its own), and `body` is ignored. The response keeps them alive until sent.
    public var parts: [StableBytes] = []

    /// A response; by default an empty 200.
    public init(status: Int = 200, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is `parts`, sent in order without copying.
    public init(status: Int = 200, headers: HTTPHeaders = [:], parts: [StableBytes]) {
        self.init(status: status, headers: headers)
        self.parts = parts
    }

    /// The body's size in bytes (streamed bodies excepted).
    public var bodyCount: Int { parts.isEmpty ? body.count : parts.reduce(0) { $0 + $1.count } }

    /// The body's bytes, joined (for tests and logs; the server sends `parts` unjoined).
    public var joinedBody: [UInt8] {
        parts.isEmpty ? body : StableBytes.joined(parts)
    }

    /// A UTF-8 text response (`Content-Type: text/plain; charset=utf-8` unless `headers` sets one).
    public static func text(_ text: String, status: Int = 200, headers: HTTPHeaders = [:]) -> Response {
        var headers = headers
        if !headers.contains("Content-Type") { headers.add(name: "Content-Type", value: "text/plain; charset=utf-8") }
        return Response(status: status, headers: headers, body: Array(text.utf8))
    }

    /// `value` encoded as JSON with `Content-Type: application/json`. An encoding failure is a bug
    /// in the caller's model, answered as a generic 500 JSON error rather than a crash.
    public static func json<T: Encodable>(_ value: T, status: Int = 200, encoder: JSONEncoder = JSONEncoder()) -> Response {
        guard let data = try? encoder.encode(value) else {
            return HTTPError.internalError.response
        }
        return Response(status: status, headers: ["Content-Type": "application/json"], body: Array(data))
    }

    /// The server's JSON error body: `{"error":{"code":"...","message":"..."}}`.
    public static func error(status: Int, code: String, message: String) -> Response {
        let body = ErrorBody(error: .init(code: code, message: message))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Two strings always encode; the fallback keeps the shape if that ever changes.
        let bytes = (try? encoder.encode(body)).map(Array.init)
            ?? Array(#"{"error":{"code":"internal_error","message":"An unexpected error occurred."}}"#.utf8)
        return Response(status: status, headers: ["Content-Type": "application/json"], body: bytes)
    }
}

/// The wire shape of an error body.
struct ErrorBody: Codable, Equatable {
    struct Detail: Codable, Equatable {
        var code: String
        var message: String
    }

    var error: Detail
}
