import HTTPServer

/// One HTTP/1.1 request of the fleet, and what to do with the answer's body.
struct ClientRequest {
    var method: String
    /// Origin-form target: path and query.
    var target: String
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    /// Keep the response body (pass downloads, JSON answers); otherwise only its length and first
    /// bytes are kept, so a storm of 60 KB passes costs no copies.
    var keepBody = true
    /// Send to this port instead of the server's (fault injection: a port that refuses).
    var port: UInt16? = nil

    /// Whether sending it twice is harmless, so a keep-alive connection the server had already
    /// closed may be retried once without asking the caller.
    var isIdempotent: Bool { method == "GET" || method == "HEAD" }

    /// The bytes on the wire. `Host` names the address actually dialled.
    func serialized(host: String) -> [UInt8] {
        var head = method + " " + target + " HTTP/1.1\r\nHost: " + host + "\r\n"
        for header in headers { head += header.name + ": " + header.value + "\r\n" }
        if !body.isEmpty || method == "POST" || method == "PATCH" || method == "PUT" {
            head += "Content-Length: " + String(body.count) + "\r\n"
        }
        head += "\r\n"
        var bytes = Array(head.utf8)
        bytes.append(contentsOf: body)
        return bytes
    }
}

/// One complete HTTP response, and how long it took.
struct ClientResponse {
    /// What the parser read.
    var parsed: HTTPResponseParser.Response
    /// Seconds from the moment a connection took the request to the last byte of the answer.
    var latency: Double = 0
    /// Seconds the request waited for a free connection before that.
    var queueWait: Double = 0

    var status: Int { parsed.status }
    var headers: [(name: String, value: String)] { parsed.headers }
    /// The body, when the request kept it.
    var body: [UInt8] { parsed.body }
    /// Body bytes received, kept or not.
    var bodyLength: Int { parsed.bodyLength }
    /// The first bytes of the body (up to four), kept or not: enough to recognise a zip archive.
    var bodyPrefix: [UInt8] { parsed.bodyPrefix }

    /// The first field named `name` (ASCII case-insensitive).
    func header(_ name: String) -> String? { parsed.header(name) }
}
