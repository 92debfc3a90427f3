internal import CCurl

/// The context libcurl's callbacks get (through `Unmanaged`): the message being uploaded and the
/// transcript of the exchange. Used only on the thread running `curl_easy_perform`.
final class SMTPTransfer {
    private var message: [UInt8] = []
    private var offset = 0
    private(set) var transcript = SMTPTranscript()

    func begin(_ message: [UInt8]) {
        self.message = message
        offset = 0
        transcript.reset()
    }

    /// Copies the next bytes of the message into libcurl's buffer; 0 at the end.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let count = min(capacity, message.count - offset)
        guard count > 0 else { return 0 }
        message.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            UnsafeMutableRawPointer(buffer).copyMemory(from: base + offset, byteCount: count)
        }
        offset += count
        return count
    }

    /// A line libcurl shows: commands it sent, replies it received.
    func observe(_ type: curl_infotype, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard type == CURLINFO_HEADER_IN || type == CURLINFO_HEADER_OUT else { return }
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            if type == CURLINFO_HEADER_IN { transcript.received(String(line)) } else { transcript.sent(String(line)) }
        }
    }
}

/// CURLOPT_READFUNCTION: the message's bytes.
let smtpReadCallback: curl_read_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let (capacity, overflow) = size.multipliedReportingOverflow(by: count)
    return Unmanaged<SMTPTransfer>.fromOpaque(context).takeUnretainedValue().read(into: buffer, capacity: overflow ? Int.max : capacity)
}

/// CURLOPT_DEBUGFUNCTION: commands and replies, fed to the transcript; nothing is printed.
let smtpDebugCallback: curl_debug_callback = { _, type, data, size, context in
    guard let data, let context, size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size)
    Unmanaged<SMTPTransfer>.fromOpaque(context).takeUnretainedValue().observe(type, bytes)
    return 0
}
