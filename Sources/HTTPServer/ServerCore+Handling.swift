import CMicroHTTPD
import Glibc

/// The request lifecycle as libmicrohttpd drives it, on the connection's worker thread:
/// 1. `prepare` (first access-handler call, headers complete): resolve the route; 400/404/405 and a
///    `Content-Length` above the limit are answered at once, without reading the body.
/// 2. `consume` (one call per body chunk): append within the limit; a chunked body that passes the
///    limit is discarded from then on and answered 413 when it ends (closed if it runs on far beyond).
/// 3. `respond` (last call): run the handler synchronously and queue its response.
extension ServerCore {
    func process(
        connection: OpaquePointer, context: RequestContext, method: UnsafePointer<CChar>?,
        uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        if !context.prepared {
            context.prepared = true
            if let early = prepare(context, connection: connection, method: method) {
                // Answering now skips the body but makes libmicrohttpd close the connection, so
                // a request without a body is answered on the next call and keeps its keep-alive.
                guard Self.hasBody(context.headers) else {
                    context.pending = early
                    return .YES
                }
                return queue(early, for: context, on: connection)
            }
            return .YES
        }
        if let pending = context.pending {
            if uploadDataSize.pointee > 0 {
                uploadDataSize.pointee = 0
                return .YES
            }
            return queue(pending, for: context, on: connection)
        }
        if uploadDataSize.pointee > 0 {
            return consume(context, data: uploadData, count: uploadDataSize)
        }
        if context.overflow > 0 {
            return queue(HTTPError.payloadTooLarge(limit: context.bodyLimit).response, for: context, on: connection, close: true)
        }
        return queue(respond(context), for: context, on: connection)
    }

    /// Reads method, headers, peer and request id, and resolves the route. Returns an immediate
    /// error response, or nil to go on reading the body.
    private func prepare(_ context: RequestContext, connection: OpaquePointer, method: UnsafePointer<CChar>?) -> Response? {
        context.method = HTTPMethod(rawValue: method.map { String(cString: $0) } ?? "GET")
        context.headers = Self.headers(of: connection)
        context.peerAddress = Self.peerAddress(of: connection)
        context.requestID = RequestID.resolve(incoming: context.headers[RequestID.headerName])

        var target = Substring(context.rawTarget)
        // Absolute-form (`GET http://host/path`, RFC 9112 §3.2.2): route on the path part only.
        if target.hasPrefix("http://") || target.hasPrefix("https://"), let scheme = target.firstRange(of: "://") {
            let authorityAndPath = target[scheme.upperBound...]
            target = authorityAndPath.firstIndex(of: "/").map { authorityAndPath[$0...] } ?? "/"
        }
        let queryStart = target.firstIndex(of: "?")
        context.rawPath = String(target[..<(queryStart ?? target.endIndex)])
        let rawQuery = queryStart.map { target[target.index(after: $0)...] } ?? ""
        guard let path = PercentDecoding.decode(context.rawPath) else {
            return HTTPError.badRequest("The path has a malformed percent-escape.").response
        }
        guard let queryItems = PercentDecoding.queryItems(rawQuery) else {
            return HTTPError.badRequest("The query has a malformed percent-escape.").response
        }
        context.path = path
        context.queryItems = queryItems

        switch router.match(method: context.method, rawPath: context.rawPath) {
        case .badPath:
            return HTTPError.badRequest("The path has a malformed percent-escape.").response
        case .notFound:
            return HTTPError.notFound().response
        case .methodNotAllowed(let allow):
            var response = HTTPError(
                status: 405, code: "method_not_allowed", message: "\(context.method) is not allowed here."
            ).response
            response.headers.replace(name: "Allow", value: allow)
            return response
        case .found(let route, let parameters):
            context.route = route
            context.parameters = parameters
            context.bodyLimit = route.maxBodySize ?? configuration.maxBodySize
        }
        if let declared = context.headers["Content-Length"], let length = Int(declared.trimmingSpaces) {
            guard length <= context.bodyLimit else {
                return HTTPError.payloadTooLarge(limit: context.bodyLimit).response
            }
            context.body.reserveCapacity(length)
        }
        return nil
    }

    private func consume(_ context: RequestContext, data: UnsafePointer<CChar>?, count: UnsafeMutablePointer<Int>) -> MHD_Result {
        let size = count.pointee
        count.pointee = 0
        if context.overflow == 0, context.body.count + size <= context.bodyLimit, let data {
            context.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size))
            return .YES
        }
        // Over the limit: keep nothing, but read on a while so the client can still get its 413.
        context.overflow += size
        context.body = []
        if context.overflow > max(context.bodyLimit, 64 << 10) {
            context.responded = true
            logAccess(context, status: 413, bytes: 0, note: "body too large, connection closed")
            return .NO
        }
        return .YES
    }

    /// Runs the handler; errors become JSON responses, unexpected ones a logged generic 500.
    private func respond(_ context: RequestContext) -> Response {
        guard let route = context.route else { return HTTPError.internalError.response }
        let request = Request(
            method: context.method, path: context.path, queryItems: context.queryItems, headers: context.headers,
            body: context.body, peerAddress: context.peerAddress, requestID: context.requestID,
            parameters: context.parameters
        )
        context.body = []
        do {
            return try route.handler(request)
        } catch let error as any RenderableError {
            let response = error.response
            if response.status >= 500 {
                // The server's fault: say why on the access line; the client sees only the body.
                context.failure = String(describing: error)
                if response.status == 500 { logFailure(error, context: context, route: route) }
            }
            return response
        } catch {
            logFailure(error, context: context, route: route)
            return HTTPError.internalError.response
        }
    }

    private func logFailure(_ error: any Error, context: RequestContext, route: Router.Route) {
        logger.error("handler failed", ["request.id": context.requestID, "route": route.pattern, "error": String(describing: error)])
    }

    /// Whether a body follows the headers (RFC 9112 §6.3: Transfer-Encoding or a non-zero length).
    private static func hasBody(_ headers: HTTPHeaders) -> Bool {
        if headers.contains("Transfer-Encoding") { return true }
        guard let length = headers["Content-Length"] else { return false }
        return Int(length.trimmingSpaces) != 0
    }

    /// Request headers in arrival order, read without assuming NUL-free values.
    private static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, collectHeader, UnsafeMutableRawPointer(pointer))
        }
        return headers
    }

    /// The numeric client address.
    private static func peerAddress(of connection: OpaquePointer) -> String {
        guard let address = shim_MHD_client_address(connection) else { return "unknown" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let capacity = socklen_t(buffer.count)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet4 in
                var raw = inet4.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &buffer, capacity)
            }
        case AF_INET6:
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                var raw = inet6.pointee.sin6_addr
                _ = inet_ntop(AF_INET6, &raw, &buffer, capacity)
            }
        default:
            return "unknown"
        }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Appends one header to the `HTTPHeaders` that `cls` points at.
private let collectHeader: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
    guard let cls, let key else { return .YES }
    let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
    let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) } ?? ""
    cls.assumingMemoryBound(to: HTTPHeaders.self).pointee.add(name: name, value: text)
    return .YES
}
