/// A complete answer: the final status (after any `100 Continue`), its header fields with
/// lowercased names in the order received, and the body's bytes (decoded if the server compressed it).
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Names lowercased; repeated fields stay separate entries.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Connections opened to get this answer: 0 when an open one was reused (keep-alive).
    public var newConnections: Int

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], newConnections: Int = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.newConnections = newConnections
    }

    /// The first value of the field `name` (any case), nil when absent.
    public subscript(header name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }

    /// The body as UTF-8 text; nil when it is not valid UTF-8.
    public var bodyText: String? { String(validating: body, as: UTF8.self) }
}
