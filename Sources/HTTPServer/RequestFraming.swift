/// Refuses requests whose length could be read in two ways (RFC 9112 §6): the checks a proxy and
/// this server must agree on so that no request can hide inside another (request smuggling).
///
/// libmicrohttpd 0.9.75 already answers 400 itself for a malformed `Content-Length` (including a
/// comma list), a NUL in a header name and malformed chunked framing. It does not refuse the
/// shapes checked here: it takes the first of two differing `Content-Length` fields, lets
/// `Transfer-Encoding: chunked` silently win over `Content-Length`, reads a body of unknown length
/// for any other transfer coding, and passes NUL bytes in header values through.
enum RequestFraming {
    /// Why the request is refused (400, connection closed), or nil when its framing is sound.
    static func problem(version: String, headers: HTTPHeaders) -> String? {
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
                return "A header name is not a valid token."
            }
            if value.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) {
                return "A header value contains NUL, CR or LF."
            }
        }
        let lengths = headers.values(for: "Content-Length").map { $0.trimmingSpaces }
        if let first = lengths.first, lengths.contains(where: { $0 != first }) {
            return "The request has differing Content-Length fields."
        }
        let encodings = headers.values(for: "Transfer-Encoding")
        guard !encodings.isEmpty else { return nil }
        if !lengths.isEmpty {
            return "The request has both Content-Length and Transfer-Encoding."
        }
        if version != "HTTP/1.1" {
            return "Transfer-Encoding is only accepted in HTTP/1.1 requests."
        }
        let codings = encodings.joined(separator: ",").split(separator: ",", omittingEmptySubsequences: false)
        guard codings.count == 1, String(codings[0]).trimmingSpaces.lowercased() == "chunked" else {
            return "The only transfer coding accepted is a single chunked."
        }
        return nil
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
