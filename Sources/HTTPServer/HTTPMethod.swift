/// An HTTP request method. Methods are case-sensitive tokens (RFC 9110 §9.1), so `get` is not `GET`.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token exactly as sent on the wire.
    public let rawValue: String

    /// Wraps any method token; unknown methods are kept so the router can answer 405.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The `GET` method.
    public static let GET = HTTPMethod(rawValue: "GET")
    /// The `HEAD` method.
    public static let HEAD = HTTPMethod(rawValue: "HEAD")
    /// The `POST` method.
    public static let POST = HTTPMethod(rawValue: "POST")
    /// The `PUT` method.
    public static let PUT = HTTPMethod(rawValue: "PUT")
    /// The `PATCH` method.
    public static let PATCH = HTTPMethod(rawValue: "PATCH")
    /// The `DELETE` method.
    public static let DELETE = HTTPMethod(rawValue: "DELETE")
    /// The `OPTIONS` method.
    public static let OPTIONS = HTTPMethod(rawValue: "OPTIONS")

    public var description: String { rawValue }

    /// Order used when listing methods in an `Allow` header, so the header is stable.
    var sortKey: (Int, String) {
        let known: [HTTPMethod] = [.GET, .HEAD, .POST, .PUT, .PATCH, .DELETE, .OPTIONS]
        return (known.firstIndex(of: self) ?? known.count, rawValue)
    }
}
