internal import CCurl

/// One libcurl easy handle and the buffers its callbacks fill. A handle keeps its connections
/// open between requests (keep-alive), so the client reuses handles from a pool.
final class CurlHandle {
    let pointer: UnsafeMutableRawPointer
    /// libcurl's own account of the last failure (CURLOPT_ERRORBUFFER).
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// The answer being received (the callbacks' context).
    let transfer = CurlTransfer()

    init?() {
        guard let pointer = curl_easy_init() else { return nil }
        self.pointer = pointer
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        curl_easy_cleanup(pointer)
        errorBuffer.deallocate()
    }

    /// libcurl's words for the last failure: its error buffer, else the code's description.
    func detail(for code: CURLcode) -> String {
        let buffered = String(cString: errorBuffer)
        return buffered.isEmpty ? String(cString: curl_easy_strerror(code)) : buffered
    }
}

/// What libcurl's write and header callbacks collect for one request. Used only on the thread
/// running `curl_easy_perform`.
final class CurlTransfer {
    private(set) var headers: [(name: String, value: String)] = []
    private(set) var body: [UInt8] = []
    private var limit = 0
    /// Set when the body outgrew `limit` and the transfer was stopped.
    private(set) var overflowed = false

    func begin(limit: Int) {
        headers = []
        body = []
        self.limit = limit
        overflowed = false
    }

    /// One header line (with its CRLF). A status line starts a new answer: the fields of a
    /// `100 Continue` before the final answer are dropped.
    func header(_ bytes: UnsafeBufferPointer<UInt8>) {
        var line = String(decoding: bytes, as: UTF8.self)
        while line.last == "\n" || line.last == "\r" || line.last == "\r\n" { line.removeLast() }
        if line.hasPrefix("HTTP/") {
            headers = []
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingWhitespace.lowercased()
        let value = String(line[line.index(after: colon)...].trimmingWhitespace)
        guard !name.isEmpty else { return }
        headers.append((name: name, value: value))
    }

    /// Body bytes; false once the body would outgrow the limit (libcurl then stops the transfer).
    func receive(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard body.count + bytes.count <= limit else {
            overflowed = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}

/// Hands one callback's bytes to the transfer; `take` returns false to stop the transfer.
private func deliver(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?,
    _ take: (CurlTransfer, UnsafeBufferPointer<UInt8>) -> Bool
) -> Int {
    guard let context else { return 0 }
    let length = size * count
    guard let data, length > 0 else { return length }
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
    return take(Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue(), bytes) ? length : 0
}

/// CURLOPT_HEADERFUNCTION: one header line at a time.
let httpHeaderCallback: curl_write_callback = { data, size, count, context in
    deliver(data, size, count, context) { transfer, bytes in
        transfer.header(bytes)
        return true
    }
}

/// CURLOPT_WRITEFUNCTION: body bytes; a short count stops the transfer (CURLE_WRITE_ERROR).
let httpWriteCallback: curl_write_callback = { data, size, count, context in
    deliver(data, size, count, context) { transfer, bytes in transfer.receive(bytes) }
}
