import CMicroHTTPD
import Glibc

/// The request lifecycle as libmicrohttpd drives it, on the connection's worker thread:
/// 1. `prepare` (first access-handler call, headers complete): refuse a head over the limits (431
///    or 414, connection closed), resolve the client address, refuse ambiguous framing (400,
///    connection closed), resolve the route, run its preflight, check the
///    query against the parameters the route declares; 400, 401, 404, 405 and a `Content-Length`
///    above the limit are answered at once, without reading the body.
/// 2. `consume` (one call per body chunk): append within the limit; a chunked body that passes the
///    limit is discarded from then on and answered 413 when it ends (closed if it runs on far beyond).
/// 3. `respond` (last call): run the handler synchronously and queue its response.
extension ServerCore {
    /// What `prepare` decided instead of reading the body.
    enum EarlyAnswer {
        /// Answer after the (empty) request, or at once if a body follows (the connection then closes).
        case answer(Response)
        /// Answer at once and close the connection: the request's framing cannot be trusted, or its
        /// head is over the limits (the client would send the same head again).
        case refuse(Response)
    }

    func process(
        connection: OpaquePointer, context: RequestContext, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
        uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        if !context.prepared {
            context.prepared = true
            switch prepare(context, connection: connection, method: method, version: version) {
            case nil:
                return .YES
            case .refuse(let response):
                return queue(response, for: context, on: connection, close: true)
            case .answer(let response):
                // Answering now skips the body but makes libmicrohttpd close the connection, so
                // a request without a body is answered on the next call and keeps its keep-alive.
                guard Self.hasBody(context.headers) else {
                    context.pending = response
                    return .YES
                }
                return queue(response, for: context, on: connection)
            }
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
        // The whole request has arrived: the deadline no longer applies while the handler works.
        connections.answered(connection)
        return queue(respond(context), for: context, on: connection)
    }

    /// Reads method, headers, addresses and request id, checks the framing, resolves the route and
    /// runs its preflight. Returns an early answer, or nil to go on reading the body.
    private func prepare(
        _ context: RequestContext, connection: OpaquePointer, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?
    ) -> EarlyAnswer? {
        context.method = HTTPMethod(rawValue: method.map { String(cString: $0) } ?? "GET")
        let (headers, fields) = Self.headers(of: connection)
        context.headers = headers
        let peer = shim_MHD_client_address(connection).flatMap { IPAddress(socketAddress: $0) }
        context.peerAddress = peer?.description ?? "unknown"
        let client = ClientAddress.resolve(
            peer: peer, forwardedFor: context.headers.values(for: "X-Forwarded-For"), trusted: configuration.trustedProxies
        )
        context.clientAddress = client?.description ?? "unknown"
        context.requestID = RequestID.resolve(incoming: context.headers[RequestID.headerName])
        if let error = HeadLimits(configuration).error(for: Self.counts(connection, fields: fields.count)) {
            context.headRefusal = error
            return .refuse(error.response)
        }

        var target = Substring(context.rawTarget)
        // Absolute-form (`GET http://host/path`, RFC 9112 §3.2.2): route on the path part only.
        if target.hasPrefix("http://") || target.hasPrefix("https://"), let scheme = target.firstRange(of: "://") {
            let authorityAndPath = target[scheme.upperBound...]
            target = authorityAndPath.firstIndex(of: "/").map { authorityAndPath[$0...] } ?? "/"
        }
        let queryStart = target.firstIndex(of: "?")
        context.rawPath = String(target[..<(queryStart ?? target.endIndex)])
        let rawQuery = queryStart.map { target[target.index(after: $0)...] } ?? ""

        let versionText = version.map { String(cString: $0) } ?? ""
        if let problem = RequestFraming.problem(version: versionText, headers: context.headers)
            ?? Self.head(connection, method: method, version: version, fields: fields, context: context)?.problem
        {
            return .refuse(HTTPError.badRequest(problem, code: "malformed_request").response)
        }
        guard let path = PercentDecoding.decode(context.rawPath) else {
            return .answer(HTTPError.badRequest("The path has a malformed percent-escape.").response)
        }
        guard let queryItems = PercentDecoding.queryItems(rawQuery) else {
            return .answer(HTTPError.badRequest("The query has a malformed percent-escape.").response)
        }
        context.path = path
        context.queryItems = queryItems

        switch router.match(method: context.method, rawPath: context.rawPath) {
        case .badPath:
            return .answer(HTTPError.badRequest("The path has a malformed percent-escape.").response)
        case .notFound:
            return .answer(HTTPError.notFound().response)
        case .methodNotAllowed(let allow):
            var response = HTTPError(
                status: 405, code: "method_not_allowed", message: "\(context.method) is not allowed here."
            ).response
            response.headers.replace(name: "Allow", value: allow)
            return .answer(response)
        case .found(let route, let parameters):
            context.route = route
            context.parameters = parameters
            context.bodyLimit = route.maxBodySize ?? configuration.maxBodySize
        }
        if let preflight = context.route?.preflight {
            do {
                try preflight(request(from: context))
            } catch {
                return .answer(errorResponse(error, context: context))
            }
        }
        if let error = context.route?.queryError(context.queryItems) {
            return .answer(error.response)
        }
        if let declared = context.headers["Content-Length"], let length = Int(declared.trimmingSpaces) {
            guard length <= context.bodyLimit else {
                return .answer(HTTPError.payloadTooLarge(limit: context.bodyLimit).response)
            }
            // Memory follows the bytes that arrive, not what a client declares.
            context.body.reserveCapacity(min(length, Self.initialBodyCapacity))
        }
        return nil
    }

    /// Body bytes reserved up front; larger bodies grow as they arrive.
    static let initialBodyCapacity = 64 << 10

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
        let request = request(from: context)
        context.body = []
        do {
            return try route.handler(request)
        } catch {
            return errorResponse(error, context: context)
        }
    }

    /// The request a preflight or handler sees (the body is whatever has arrived: none for a preflight).
    private func request(from context: RequestContext) -> Request {
        Request(
            method: context.method, path: context.path, queryItems: context.queryItems, headers: context.headers,
            body: context.body, peerAddress: context.peerAddress, clientAddress: context.clientAddress,
            requestID: context.requestID, parameters: context.parameters
        )
    }

    /// A `RenderableError` renders itself; anything else is a generic 500, logged with the request id.
    private func errorResponse(_ error: any Error, context: RequestContext) -> Response {
        if let error = error as? any RenderableError {
            let response = error.response
            if response.status >= 500 {
                // The server's fault: say why on the access line; the client sees only the body.
                context.failure = String(describing: error)
                if response.status == 500 { logFailure(error, context: context) }
            }
            return response
        }
        logFailure(error, context: context)
        return HTTPError.internalError.response
    }

    private func logFailure(_ error: any Error, context: RequestContext) {
        logger.error(
            "handler failed",
            ["request.id": context.requestID, "route": context.route?.pattern ?? "", "error": String(describing: error)]
        )
    }

    /// Whether a body follows the headers (RFC 9112 §6.3: Transfer-Encoding or a non-zero length).
    private static func hasBody(_ headers: HTTPHeaders) -> Bool {
        if headers.contains("Transfer-Encoding") { return true }
        guard let length = headers["Content-Length"] else { return false }
        return Int(length.trimmingSpaces) != 0
    }

    /// Request headers in arrival order, read without assuming NUL-free values, and where each
    /// one lay in libmicrohttpd's buffer (name start and value end addresses).
    private static func headers(of connection: OpaquePointer) -> (HTTPHeaders, [(start: UInt, end: UInt)]) {
        var collected = CollectedHeaders()
        withUnsafeMutablePointer(to: &collected) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, collectHeader, UnsafeMutableRawPointer(pointer))
        }
        return (collected.headers, collected.fields)
    }

    /// The sizes of the request head that `HeadLimits` checks, as libmicrohttpd counted them.
    private static func counts(_ connection: OpaquePointer, fields: Int) -> HeadLimits.Counts {
        HeadLimits.Counts(
            headSize: shim_MHD_request_header_size(connection), fields: fields,
            cookies: Int(MHD_get_connection_values(connection, .COOKIE_KIND, nil, nil)),
            queryParameters: Int(MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, nil, nil))
        )
    }

    /// The layout of the request head, as offsets from the method (see `RequestHead`).
    private static func head(
        _ connection: OpaquePointer, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
        fields: [(start: UInt, end: UInt)], context: RequestContext
    ) -> RequestHead? {
        guard let method, let version, context.rawTargetAddress != 0 else { return nil }
        let base = UInt(bitPattern: method)
        func offset(_ address: UInt) -> Int { Int(bitPattern: address &- base) }
        return RequestHead(
            methodLength: strlen(method),
            target: (start: offset(context.rawTargetAddress), length: context.rawTargetLength),
            version: (start: offset(UInt(bitPattern: version)), length: strlen(version)),
            fields: fields.map { (start: offset($0.start), end: offset($0.end)) },
            size: shim_MHD_request_header_size(connection)
        )
    }
}

/// What `collectHeader` gathers.
private struct CollectedHeaders {
    var headers = HTTPHeaders()
    var fields: [(start: UInt, end: UInt)] = []
}

/// Appends one header, and where it lay, to the `CollectedHeaders` that `cls` points at.
private let collectHeader: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
    guard let cls, let key else { return .YES }
    let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
    let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) } ?? ""
    let collected = cls.assumingMemoryBound(to: CollectedHeaders.self)
    collected.pointee.headers.add(name: name, value: text)
    let end = value.map { UInt(bitPattern: $0) + UInt(valueSize) } ?? UInt(bitPattern: key) + UInt(keySize)
    collected.pointee.fields.append((start: UInt(bitPattern: key), end: end))
    return .YES
}
