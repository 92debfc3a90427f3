import CCurl
import Foundation

/// The push relay's transport: one libcurl easy transfer per request (the relay is asked once per
/// batch of a pass type, so a connection per request costs little). libcurl's signal use is off
/// (CURLOPT_NOSIGNAL); the answer's body is collected through a write callback, bounded.
struct CurlRelayTransport: RelayTransport {
    /// Extra CA certificate (PEM) trusted besides the system store; nil: the system store only.
    var caFile: String? = nil

    /// The most of an answer's body kept (the relay's words for a refusal).
    static let maxBody = 4_096

    /// libcurl's global setup, once per process, before the first handle.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) -> RelayTransportResult {
        guard Self.globalInit == CURLE_OK, let handle = curl_easy_init() else { return .unreachable("libcurl cannot create a handle") }
        defer { curl_easy_cleanup(handle) }
        let answer = CurlAnswer()
        let context = Unmanaged.passUnretained(answer).toOpaque()
        var list: UnsafeMutablePointer<curl_slist>?
        for (name, value) in headers { list = curl_slist_append(list, "\(name): \(value)") }
        defer { curl_slist_free_all(list) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        let milliseconds = Int(timeout.components.seconds) * 1_000 + Int(timeout.components.attoseconds / 1_000_000_000_000_000)
        var ok = shim_curl_setopt_string(handle, CURLOPT_URL, url) == CURLE_OK
        ok = ok && shim_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https,http") == CURLE_OK
        ok = ok && shim_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1) == CURLE_OK
        ok = ok && shim_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(milliseconds, 10_000)) == CURLE_OK
        ok = ok && shim_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds) == CURLE_OK
        ok = ok && shim_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list) == CURLE_OK
        ok = ok && shim_curl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)) == CURLE_OK
        ok = ok && shim_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer) == CURLE_OK
        // libcurl's write callback has the read callback's C type; it goes through the pointer setter.
        ok = ok && shim_curl_setopt_pointer(handle, CURLOPT_WRITEFUNCTION, unsafeBitCast(relayWriteCallback, to: UnsafeMutableRawPointer.self)) == CURLE_OK
        ok = ok && shim_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context) == CURLE_OK
        if let caFile { ok = ok && shim_curl_setopt_string(handle, CURLOPT_CAINFO, caFile) == CURLE_OK }
        guard ok else { return .unreachable("libcurl refused an option") }
        let code: CURLcode = body.withUnsafeBytes { bytes in
            // COPYPOSTFIELDS copies the body (with POSTFIELDSIZE set first, NUL bytes included).
            guard shim_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(errorBuffer))) == CURLE_OK
            else { return CURLE_FAILED_INIT }
            return curl_easy_perform(handle)
        }
        withExtendedLifetime(answer) {}
        var status = 0
        _ = shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        if code == CURLE_OK { return .answered(status: status, body: answer.body) }
        let detail = String(cString: errorBuffer)
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION:
            return .unreachable(message)
        default:
            return .failed(message)
        }
    }
}

/// An answer's body as libcurl hands it over, on the thread running `curl_easy_perform`.
private final class CurlAnswer {
    var body: [UInt8] = []
}

private let relayWriteCallback: curl_write_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let answer = Unmanaged<CurlAnswer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    let room = max(CurlRelayTransport.maxBody - answer.body.count, 0)
    buffer.withMemoryRebound(to: UInt8.self, capacity: length) { answer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: min(length, room))) }
    return length
}
