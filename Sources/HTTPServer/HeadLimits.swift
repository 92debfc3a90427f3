/// The limits on a request head (`ServerConfiguration`), checked once libmicrohttpd has read the
/// headers and before anything else looks at them. libmicrohttpd's pool is sized so that every
/// head within them fits (`ServerConfiguration.connectionMemoryLimit`), and one somewhat beyond
/// them still reaches this check and gets a JSON answer instead of libmicrohttpd's own.
struct HeadLimits {
    var maxHeaderSize: Int
    var maxHeaderFields: Int
    var maxCookies: Int
    var maxQueryParameters: Int

    init(_ configuration: ServerConfiguration) {
        maxHeaderSize = configuration.maxHeaderSize
        maxHeaderFields = configuration.maxHeaderFields
        maxCookies = configuration.maxCookies
        maxQueryParameters = configuration.maxQueryParameters
    }

    /// What libmicrohttpd found in one request head.
    struct Counts {
        /// Bytes from the start of the request line to the end of the empty line.
        var headSize: Int
        var fields: Int
        /// Cookies in the `Cookie` header, as libmicrohttpd splits them.
        var cookies: Int
        /// Arguments in the query, as libmicrohttpd splits them.
        var queryParameters: Int
    }

    /// The answer for a head over a limit (431, or 414 for the query), or nil.
    func error(for counts: Counts) -> HTTPError? {
        if counts.queryParameters > maxQueryParameters {
            return HTTPError(
                status: 414, code: "uri_too_long",
                message: "The request target has \(counts.queryParameters) query parameters; at most \(maxQueryParameters) are accepted."
            )
        }
        let problem: String? = if counts.headSize > maxHeaderSize {
            "The request line and headers are \(counts.headSize) bytes; at most \(maxHeaderSize) are accepted."
        } else if counts.fields > maxHeaderFields {
            "The request has \(counts.fields) header fields; at most \(maxHeaderFields) are accepted."
        } else if counts.cookies > maxCookies {
            "The request carries \(counts.cookies) cookies; at most \(maxCookies) are accepted."
        } else {
            nil
        }
        return problem.map { HTTPError(status: 431, code: "header_fields_too_large", message: $0) }
    }
}
