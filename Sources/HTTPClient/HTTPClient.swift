// A small HTTPS client on libcurl for calling web APIs.
//
// Threading: `send` blocks the calling thread for the whole exchange, so call it from a thread of
// your own (a worker, an outbox sender), never from Swift's cooperative pool. Any number of threads
// may call one client at once: each request takes an easy handle from a pool behind a `Mutex` (or
// makes one) and gives it back afterwards, so a handle serves one thread at a time and its open
// connections are reused by later requests (keep-alive). At most `pooledHandles` idle handles are
// kept; the rest are freed. libcurl's signal use is off (CURLOPT_NOSIGNAL), as a multithreaded
// process needs. Redirects are never followed: a 3xx comes back as the answer.

internal import CCurl
import Synchronization

#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// Settings shared by every request of a client.
public struct HTTPClientConfiguration: Sendable, Equatable {
    /// A PEM file of CA certificates trusted besides the system's store (a private CA, a test CA).
    public var caFile: String?
    /// The most a connection attempt may take (bounded by each request's own timeout).
    public var connectTimeout: Duration
    /// The largest answer body accepted; a longer one fails with `.responseTooLarge`.
    public var maxResponseBody: Int
    /// Idle easy handles (with their open connections) kept for reuse.
    public var pooledHandles: Int

    public init(caFile: String? = nil, connectTimeout: Duration = .seconds(10), maxResponseBody: Int = 1 << 20, pooledHandles: Int = 4) {
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.maxResponseBody = maxResponseBody
        self.pooledHandles = pooledHandles
    }
}

/// Sends HTTP/1.1 requests over `http` and `https`; see the threading notes at the top of the file.
public final class HTTPClient: Sendable {
    public let configuration: HTTPClientConfiguration
    private let pool = Mutex<[PooledHandle]>([])

    /// Safe because a handle in the pool is used by no thread; `send` takes it out under the lock
    /// and uses it on its own thread only until it puts it back.
    private struct PooledHandle: @unchecked Sendable {
        let handle: CurlHandle
    }

    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) {
        self.configuration = configuration
    }

    /// libcurl's global setup, once per process, before the first handle.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// The system's CA directory, which stays trusted when `caFile` replaces libcurl's default bundle.
    private static let systemCAPath: String = {
        guard let info = shim_curl_version_info(), let path = info.pointee.capath else { return "/etc/ssl/certs" }
        return String(cString: path)
    }()

    /// Sends `request` and waits for the whole answer; any status is an answer. Throws
    /// `HTTPClientError` when there is no complete answer (refused, dropped, timed out, TLS, too large).
    public func send(_ request: HTTPRequest) throws(HTTPClientError) -> HTTPResponse {
        guard Self.globalInit == CURLE_OK else { throw HTTPClientError(.other, "libcurl cannot initialize") }
        let handle = try takeHandle()
        defer { giveBack(handle) }
        return try perform(request, on: handle)
    }

    private func takeHandle() throws(HTTPClientError) -> CurlHandle {
        if let pooled = pool.withLock({ $0.popLast() }) { return pooled.handle }
        guard let handle = CurlHandle() else { throw HTTPClientError(.other, "libcurl cannot create a handle") }
        return handle
    }

    private func giveBack(_ handle: CurlHandle) {
        let kept = PooledHandle(handle: handle)
        pool.withLock { handles in
            if handles.count < configuration.pooledHandles { handles.append(kept) }
        }
    }

    private func perform(_ request: HTTPRequest, on handle: CurlHandle) throws(HTTPClientError) -> HTTPResponse {
        let host = Self.hostPart(of: request.url)
        for field in request.headers {
            guard Self.isToken(field.name), !field.value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else {
                throw HTTPClientError(.invalidRequest, "header field \(field.name.prefix(64)) cannot be sent")
            }
        }
        guard Self.isToken(request.method) else { throw HTTPClientError(.invalidRequest, "method \(request.method.prefix(32)) is not a token") }
        // Keeps the handle's connections, drops every option of the previous request.
        curl_easy_reset(handle.pointer)
        handle.errorBuffer[0] = 0
        handle.transfer.begin(limit: configuration.maxResponseBody)
        var fields: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(fields) }
        for field in request.headers {
            fields = curl_slist_append(fields, "\(field.name): \(field.value)")
        }
        // libcurl would otherwise wait for a `100 Continue` before larger bodies.
        fields = curl_slist_append(fields, "Expect:")
        guard fields != nil else { throw HTTPClientError(.other, "cannot allocate the header list") }
        let timeout = max(1, Int(request.timeout.milliseconds))
        var options = CurlOptions(handle: handle.pointer)
        options.set(CURLOPT_URL, request.url)
        options.set(CURLOPT_PROTOCOLS_STR, "http,https")
        options.set(CURLOPT_NOSIGNAL, 1)
        options.set(CURLOPT_FOLLOWLOCATION, 0)
        options.set(CURLOPT_TCP_KEEPALIVE, 1)
        options.set(CURLOPT_TIMEOUT_MS, timeout)
        options.set(CURLOPT_CONNECTTIMEOUT_MS, min(timeout, max(1, Int(configuration.connectTimeout.milliseconds))))
        options.set(CURLOPT_ACCEPT_ENCODING, "")
        if let caFile = configuration.caFile {
            options.set(CURLOPT_CAINFO, caFile)
            options.set(CURLOPT_CAPATH, Self.systemCAPath)
        }
        // Pinned: libcurl connects to the given addresses only (see `HTTPRequest.pinnedAddresses`).
        var resolve: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(resolve) }
        let pin = request.pinnedAddresses.map { SocketPin(allowed: Set($0)) }
        if let pinned = request.pinnedAddresses, let pin {
            let target = try URLTarget.parse(request.url)
            if target.literalAddress == nil {
                resolve = curl_slist_append(nil, "\(target.host):\(target.port):" + pinned.map(\.resolveEntry).joined(separator: ","))
                guard resolve != nil else { throw HTTPClientError(.other, "cannot allocate the resolve list") }
                options.check(shim_curl_setopt_slist(handle.pointer, CURLOPT_RESOLVE, resolve))
            }
            options.set(CURLOPT_PROXY, "")
            options.check(shim_curl_setopt_opensocket_function(handle.pointer, pinnedSocketCallback))
            options.check(shim_curl_setopt_pointer(handle.pointer, CURLOPT_OPENSOCKETDATA, Unmanaged.passUnretained(pin).toOpaque()))
        }
        options.check(shim_curl_setopt_slist(handle.pointer, CURLOPT_HTTPHEADER, fields))
        options.check(shim_curl_setopt_pointer(handle.pointer, CURLOPT_ERRORBUFFER, handle.errorBuffer))
        let context = Unmanaged.passUnretained(handle.transfer).toOpaque()
        options.check(shim_curl_setopt_write_function(handle.pointer, CURLOPT_HEADERFUNCTION, httpHeaderCallback))
        options.check(shim_curl_setopt_pointer(handle.pointer, CURLOPT_HEADERDATA, context))
        options.check(shim_curl_setopt_write_function(handle.pointer, CURLOPT_WRITEFUNCTION, httpWriteCallback))
        options.check(shim_curl_setopt_pointer(handle.pointer, CURLOPT_WRITEDATA, context))
        switch request.method {
        case "GET" where request.body.isEmpty:
            options.set(CURLOPT_HTTPGET, 1)
        case "HEAD" where request.body.isEmpty:
            options.set(CURLOPT_NOBODY, 1)
        default:
            options.set(CURLOPT_CUSTOMREQUEST, request.method)
        }
        if let failed = options.failure {
            throw HTTPClientError(.invalidRequest, "libcurl refused an option for \(host): \(String(cString: curl_easy_strerror(failed)))")
        }
        let sendsBody = !(request.method == "GET" || request.method == "HEAD") || !request.body.isEmpty
        let code: CURLcode = request.body.withUnsafeBytes { body in
            if sendsBody {
                guard shim_curl_setopt_offset(handle.pointer, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)) == CURLE_OK else {
                    return CURLE_BAD_FUNCTION_ARGUMENT
                }
                // Not copied: the bytes stay valid until `curl_easy_perform` returns. An empty body
                // has no address of its own, so libcurl gets a copy of the empty string.
                let set: CURLcode = if let base = body.baseAddress, !body.isEmpty {
                    shim_curl_setopt_pointer(handle.pointer, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: base))
                } else {
                    shim_curl_setopt_string(handle.pointer, CURLOPT_COPYPOSTFIELDS, "")
                }
                guard set == CURLE_OK else { return CURLE_BAD_FUNCTION_ARGUMENT }
            }
            return curl_easy_perform(handle.pointer)
        }
        // The body pointer must not outlive this call in the handle.
        _ = shim_curl_setopt_pointer(handle.pointer, CURLOPT_POSTFIELDS, nil)
        if let refused = withExtendedLifetime(pin, { pin?.refused }) {
            throw HTTPClientError(.addressNotAllowed, "\(host) led to \(refused), which is not among the addresses checked for it")
        }
        guard code == CURLE_OK else {
            throw Self.error(code, detail: handle.detail(for: code), host: host, overflowed: handle.transfer.overflowed, limit: configuration.maxResponseBody)
        }
        var status = 0
        _ = shim_curl_getinfo_long(handle.pointer, CURLINFO_RESPONSE_CODE, &status)
        var connects = 0
        _ = shim_curl_getinfo_long(handle.pointer, CURLINFO_NUM_CONNECTS, &connects)
        return HTTPResponse(status: status, headers: handle.transfer.headers, body: handle.transfer.body, newConnections: connects)
    }

    /// The typed failure for a libcurl code.
    static func error(_ code: CURLcode, detail: String, host: String, overflowed: Bool, limit: Int) -> HTTPClientError {
        switch code {
        case CURLE_WRITE_ERROR where overflowed:
            return HTTPClientError(.responseTooLarge, "the answer from \(host) is larger than \(limit) bytes")
        case CURLE_COULDNT_CONNECT:
            return HTTPClientError(.connectionRefused, "cannot connect to \(host): \(detail)")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return HTTPClientError(.unresolvedHost, "cannot resolve \(host): \(detail)")
        case CURLE_OPERATION_TIMEDOUT:
            return HTTPClientError(.timedOut, "no complete answer from \(host) in time: \(detail)")
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return HTTPClientError(.connectionDropped, "the connection to \(host) broke before the answer was complete: \(detail)")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CRL_BADFILE:
            return HTTPClientError(.tls, "TLS with \(host) failed: \(detail)")
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT:
            return HTTPClientError(.invalidRequest, "the request to \(host) cannot be sent: \(detail)")
        default:
            return HTTPClientError(.other, "the request to \(host) failed: \(detail)")
        }
    }

    /// `scheme://host:port` of a URL, without credentials, path or query, for messages.
    static func hostPart(of url: String) -> String {
        let text = Substring(url)
        var start = text.startIndex
        var scheme = Substring("")
        if let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") {
            scheme = text[..<colon]
            start = text.index(colon, offsetBy: 3)
        }
        var authority = text[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return String((scheme.isEmpty ? authority : scheme + "://" + authority).prefix(200))
    }

    /// An RFC 9110 token (method names, header field names).
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}

/// Sets options on one handle and remembers the first refusal, so a request is either fully set up or not sent.
private struct CurlOptions {
    let handle: UnsafeMutableRawPointer
    private(set) var failure: CURLcode?

    init(handle: UnsafeMutableRawPointer) { self.handle = handle }

    mutating func set(_ option: CURLoption, _ value: Int) {
        check(shim_curl_setopt_long(handle, option, value))
    }

    mutating func set(_ option: CURLoption, _ value: String) {
        check(shim_curl_setopt_string(handle, option, value))
    }

    mutating func check(_ code: CURLcode) {
        if code != CURLE_OK, failure == nil { failure = code }
    }
}

/// The addresses a pinned request may open sockets to, and the first other one libcurl tried.
/// Used on the thread running `curl_easy_perform` only.
private final class SocketPin {
    let allowed: Set<IPAddress>
    private(set) var refused: IPAddress?

    init(allowed: Set<IPAddress>) { self.allowed = allowed }

    func allows(_ address: IPAddress) -> Bool {
        if allowed.contains(address) { return true }
        if refused == nil { refused = address }
        return false
    }
}

/// CURLOPT_OPENSOCKETFUNCTION of a pinned request: opens the socket only to an allowed address.
private let pinnedSocketCallback: curl_opensocket_callback = { context, _, address in
    guard let context, let address else { return CURL_SOCKET_BAD }
    let pin = Unmanaged<SocketPin>.fromOpaque(context).takeUnretainedValue()
    var bytes = [UInt8](repeating: 0, count: 16)
    let count = shim_curl_sockaddr_ip(address, &bytes)
    guard count > 0, let ip = IPAddress(bytes: Array(bytes.prefix(Int(count)))), pin.allows(ip) else { return CURL_SOCKET_BAD }
    return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
}
