/// A response body produced piece by piece while it is sent, for bodies too large to hold at once
/// (exports): memory stays at one piece, however long the body.
///
/// `next` returns the next piece, an empty array to be asked again, or nil at the end. It runs on
/// the worker thread of the connection, whenever the client has read what was sent before, and
/// may block there (on the database) like a handler. A thrown error ends the response early: the
/// connection is closed before the chunked body's last chunk, so the client sees it incomplete
/// rather than mistaking a part for the whole. The error is logged with the request id.
public final class BodyStream: Sendable {
    let next: @Sendable () throws -> [UInt8]?

    public init(_ next: @escaping @Sendable () throws -> [UInt8]?) {
        self.next = next
    }
}

extension Response {
    /// A response whose body is streamed with chunked transfer encoding (see `BodyStream`).
    public static func streamed(status: Int = 200, headers: HTTPHeaders, _ stream: BodyStream) -> Response {
        var response = Response(status: status, headers: headers)
        response.stream = stream
        return response
    }
}
