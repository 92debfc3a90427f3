import CMicroHTTPD
import Glibc

// Two answers that libmicrohttpd 0.9.75 cannot send, both for request heads beyond the limits
// (`HeadLimits`), written by the server straight to the socket while libmicrohttpd still holds it
// open and has sent nothing of an answer. Written without waiting: a full send buffer, or a client
// that has gone, just drops it. The connection closes afterwards.
extension ServerCore {
    /// Answers a request that libmicrohttpd gave up on after its request line without calling the
    /// access handler or the completion callback. In 0.9.75 that is a head whose cookies or query
    /// arguments outgrew the connection's pool (far beyond what a browser sends): answering that
    /// with its own 431, it meets a second error and marks the connection closed before a byte of
    /// the answer is sent. Called from the close notification, before libmicrohttpd closes the
    /// socket: 431, or 414 when the query has too many parameters.
    func answerAbandoned(_ target: ConnectionContext.RawTarget, on connection: OpaquePointer) {
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
        let sent = writeDirectly(error, requestID: requestID, on: connection)
        let peer = shim_MHD_client_address(connection).flatMap { IPAddress(socketAddress: $0) }
        // Info, like the access line it stands in for (the method is unknown here).
        logger.info("request head abandoned by libmicrohttpd: answered, connection closed", [
            "path": loggedPath.redact(String(target.text.prefix { $0 != "?" })), "status": String(error.status),
            "bytes": String(sent), "request.id": requestID, "peer": peer?.description ?? "unknown",
        ])
    }

    /// Sends again the refusal of a head over the limits (`RequestContext.headRefusal`) that
    /// libmicrohttpd could not send: a head just short of filling the pool leaves no room for the
    /// answer's headers, and libmicrohttpd then closes the connection (termination "with error")
    /// before sending any of it. Called from the completion callback, before the socket closes.
    func resendHeadRefusal(_ error: HTTPError, for context: RequestContext, on connection: OpaquePointer) {
        let sent = writeDirectly(error, requestID: context.requestID, on: connection)
        logger.debug("head refusal sent past libmicrohttpd", ["request.id": context.requestID, "bytes": String(sent)])
    }

    /// Writes `error`'s response, with `Connection: close`, to the connection's socket without
    /// waiting; returns the bytes written (0 if none).
    private func writeDirectly(_ error: HTTPError, requestID: String, on connection: OpaquePointer) -> Int {
        let fd = shim_MHD_connection_fd(connection)
        guard fd >= 0 else { return 0 }
        let response = error.response
        var head = "HTTP/1.1 \(response.status) \(HTTPStatus.reasonPhrase(for: response.status))\r\n"
        for (name, value) in response.headers where !Self.isManagedHeader(name) { head += "\(name): \(value)\r\n" }
        head += "\(RequestID.headerName): \(requestID)\r\nConnection: close\r\nContent-Length: \(response.body.count)\r\n\r\n"
        let bytes = Array(head.utf8) + response.body
        return max(bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }, 0)
    }
}
