import CMicroHTTPD
import Glibc
import Logging

// The C callbacks handed to libmicrohttpd. They cannot capture, so each one recovers the shared
// `ServerCore` from `cls` (unretained: `HTTPServer` outlives the daemon) and the connection's
// `ConnectionContext` from its socket context (retained from the connection's start until its
// close), which owns the current `RequestContext` (see `ConnectionContext` for why the request's
// state begins in the access handler and not in the URI callback).

/// First sight of a request (request line parsed, headers not yet): note the raw target, which
/// libmicrohttpd has not unescaped, so routing can see `%2F` as data. Nothing is allocated that
/// only a completion callback would release: libmicrohttpd may drop the request without one.
let uriCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
    _, uri, connection in
    guard let connection, let state = ConnectionContext.of(connection) else { return nil }
    state.target = uri.map { ConnectionContext.RawTarget(text: String(cString: $0), length: strlen($0), address: UInt(bitPattern: $0)) }
    return nil
}

/// Headers complete, each body chunk, and end of request: see `ServerCore.process`. The first
/// call (`*con_cls` still nil) starts the request; libmicrohttpd calls the completion callback for
/// every request whose access handler it called.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadDataSize, conCls in
    guard let cls, let connection, let uploadDataSize, let conCls else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    guard let state = ConnectionContext.of(connection) else {
        core.logger.error("connection without its context: closed")
        return .NO
    }
    let context: RequestContext
    if conCls.pointee == nil {
        let target = state.target ?? ConnectionContext.RawTarget(text: url.map { String(cString: $0) } ?? "/", length: 0, address: 0)
        state.target = nil
        context = RequestContext(target: target)
        state.begin(context, core: core)
        // Only a mark that this request has started: the connection context owns the request.
        conCls.pointee = Unmanaged.passUnretained(context).toOpaque()
    } else if let current = state.request {
        context = current
    } else {
        core.logger.error("request without its context: connection closed")
        return .NO
    }
    return core.process(
        connection: connection, context: context, method: method, version: version, uploadData: uploadData,
        uploadDataSize: uploadDataSize
    )
}

/// The request is over (answered, aborted or timed out): release its context. Also called for a
/// request that libmicrohttpd answered itself, whose access handler never ran (`*con_cls` nil).
let completedCallback: MHD_RequestCompletedCallback = { cls, connection, conCls, termination in
    guard let cls, let connection else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let started = conCls?.pointee != nil
    conCls?.pointee = nil
    // The next request on this connection must arrive within the deadline too.
    core.connections.awaitNext(connection)
    guard let state = ConnectionContext.of(connection) else { return }
    state.target = nil
    if started, termination == .REQUEST_TERMINATED_WITH_ERROR, let request = state.request, let refusal = request.headRefusal {
        core.resendHeadRefusal(refusal, for: request, on: connection)
    }
    if started { state.end(core: core, completed: true, termination: termination) }
}

/// A new TCP connection, before anything is read: refused (closed at once) when the server holds
/// its maximum of connections or its peer holds its share already.
let acceptPolicy: MHD_AcceptPolicyCallback = { cls, address, _ in
    guard let cls else { return .YES }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    return core.connections.admit(address) ? .YES : .NO
}

/// A connection started or closed (after its last request): creates and releases its
/// `ConnectionContext` (answering a request libmicrohttpd dropped, ending one it never completed)
/// and keeps the connection table current.
let connectionNotification: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
    guard let cls, let connection else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    switch code {
    case .CONNECTION_NOTIFY_STARTED:
        let state = ConnectionContext()
        socketContext?.pointee = Unmanaged.passRetained(state).toOpaque()
        core.connections.started(connection, deadline: state.deadline)
    case .CONNECTION_NOTIFY_CLOSED:
        if let socketContext, let pointer = socketContext.pointee {
            socketContext.pointee = nil
            let state = Unmanaged<ConnectionContext>.fromOpaque(pointer).takeRetainedValue()
            // A target not taken by the access handler nor cleared by a completion: libmicrohttpd
            // dropped that request without a word.
            if let target = state.target { core.answerAbandoned(target, on: connection) }
            state.end(core: core, completed: false)
        }
        core.connections.closed(connection)
    default: break
    }
}

/// libmicrohttpd's own unescaping is switched off: the raw target is decoded by `PercentDecoding`.
let keepEscapes: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = { _, _, text in
    guard let text else { return 0 }
    return strlen(text)
}

/// libmicrohttpd's diagnostics (mostly about misbehaving clients) go to our logger, never stdout.
let errorLogCallback: MHD_LogCallback = { cls, format, arguments in
    guard let cls, let format, let arguments else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    var buffer = [CChar](repeating: 0, count: 512)
    let written = vsnprintf(&buffer, buffer.count, format, arguments)
    guard written > 0 else { return }
    let length = buffer.firstIndex(of: 0) ?? buffer.count
    let text = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // Malformed requests are the client's problem: keep them out of the default log level.
    let level: LogLevel = ["Error processing request", "Failed to parse", "Received"].contains { text.hasPrefix($0) } ? .debug : .notice
    core.logger.log(level, "libmicrohttpd", ["detail": text.strippingEdges(of: "\n ")])
}

/// A C function pointer as the `intptr_t` that `MHD_OptionItem.value` wants for two-pointer options.
func optionValue<F>(_ function: F) -> Int {
    Int(bitPattern: unsafeBitCast(function, to: UnsafeRawPointer.self))
}
