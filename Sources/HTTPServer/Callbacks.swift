import CMicroHTTPD
import Glibc
import Logging

// The C callbacks handed to libmicrohttpd. They cannot capture, so each one recovers the shared
// `ServerCore` from `cls` (unretained: `HTTPServer` outlives the daemon) and the per-request
// `RequestContext` from `*con_cls` (retained from the URI callback until the completion callback).

/// First sight of a request (request line parsed, headers not yet): make its context from the
/// raw target, which libmicrohttpd has not unescaped, so routing can see `%2F` as data.
let uriCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
    cls, uri, _ in
    guard let cls else { return nil }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    core.inFlight.add(1, ordering: .relaxed)
    let context = RequestContext(rawTarget: uri.map { String(cString: $0) } ?? "/")
    context.rawTargetLength = uri.map { strlen($0) } ?? 0
    context.rawTargetAddress = uri.map { UInt(bitPattern: $0) } ?? 0
    return Unmanaged.passRetained(context).toOpaque()
}

/// Headers complete, each body chunk, and end of request: see `ServerCore.process`.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadDataSize, conCls in
    guard let cls, let connection, let uploadDataSize, let conCls else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let context: RequestContext
    if let existing = conCls.pointee {
        context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()
    } else {
        // The URI callback always runs first; this only guards against a library that skips it.
        context = RequestContext(rawTarget: url.map { String(cString: $0) } ?? "/")
        core.inFlight.add(1, ordering: .relaxed)
        conCls.pointee = Unmanaged.passRetained(context).toOpaque()
    }
    return core.process(
        connection: connection, context: context, method: method, version: version, uploadData: uploadData,
        uploadDataSize: uploadDataSize
    )
}

/// The request is over (answered, aborted or timed out): release its context.
let completedCallback: MHD_RequestCompletedCallback = { cls, connection, conCls, termination in
    guard let cls, let conCls, let pointer = conCls.pointee else { return }
    conCls.pointee = nil
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    // The next request on this connection must arrive within the deadline too.
    if let connection { core.connections.awaitNext(connection) }
    let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
    core.inFlight.subtract(1, ordering: .relaxed)
    if context.prepared && !context.responded {
        core.logger.debug("request aborted", ["request.id": context.requestID, "termination": "\(termination.rawValue)"])
    }
}

/// A new TCP connection, before anything is read: refused (closed at once) when the server holds
/// its maximum of connections or its peer holds its share already.
let acceptPolicy: MHD_AcceptPolicyCallback = { cls, address, _ in
    guard let cls else { return .YES }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    return core.connections.admit(address) ? .YES : .NO
}

/// A connection started or closed (after its last request): keeps the connection table current.
let connectionNotification: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    switch code {
    case .CONNECTION_NOTIFY_STARTED: core.connections.started(connection)
    case .CONNECTION_NOTIFY_CLOSED: core.connections.closed(connection)
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
