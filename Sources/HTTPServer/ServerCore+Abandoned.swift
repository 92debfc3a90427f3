import CMicroHTTPD
import Glibc

extension ServerCore {
    /// Answers a request that libmicrohttpd gave up on after its request line without calling the
    /// access handler or the completion callback. In 0.9.75 that is a head whose cookies or query
    /// arguments outgrew the connection's pool (beyond the limits `HeadLimits` checks, far beyond
    /// what a browser sends): answering that with its own 431, it meets a second error and marks
    /// the connection closed before a byte of the answer is sent. Called from the close
    /// notification, before libmicrohttpd closes the socket, so the answer (431, or 414 when the
    /// query has too many parameters) is written to the socket directly, without waiting: a full
    /// send buffer, or a client that has gone, just drops it. The connection then closes.
    func answerAbandoned(_ target: ConnectionContext.RawTarget, on connection: OpaquePointer) {
        let fd = shim_MHD_connection_fd(connection)
        guard fd >= 0 else { return }
        let query = target.text.firstIndex(of: "?").map { target.text[target.text.index(after: $0)...] } ?? ""
        let queryParameters = query.split(separator: "&").count
        let error =
            queryParameters > configuration.maxQueryParameters
            ? HTTPError(
                status: 414, code: "uri_too_long",
                message: "The request target has \(queryParameters) query parameters; at most \(configuration.maxQueryParameters) are accepted."
            )
            : HTTPError(
                status: 431, code: "header_fields_too_large",
                message: "The request headers are beyond the server's limits: at most \(configuration.maxHeaderSize) bytes, "
                    + "\(configuration.maxHeaderFields) header fields and \(configuration.maxCookies) cookies are accepted."
            )
        let requestID = RequestID.resolve(incoming: nil)
        let response = error.response
        var head = "HTTP/1.1 \(response.status) \(HTTPStatus.reasonPhrase(for: response.status))\r\n"
        for (name, value) in response.headers where !Self.isManagedHeader(name) { head += "\(name): \(value)\r\n" }
        head += "\(RequestID.headerName): \(requestID)\r\nConnection: close\r\nContent-Length: \(response.body.count)\r\n\r\n"
        let bytes = Array(head.utf8) + response.body
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        let peer = shim_MHD_client_address(connection).flatMap { IPAddress(socketAddress: $0) }
        // Info, like the access line it stands in for (the method is unknown here).
        logger.info("request head abandoned by libmicrohttpd: answered, connection closed", [
            "path": loggedPath.redact(String(target.text.prefix { $0 != "?" })), "status": String(response.status),
            "bytes": String(max(sent, 0)), "request.id": requestID, "peer": peer?.description ?? "unknown",
        ])
    }
}
