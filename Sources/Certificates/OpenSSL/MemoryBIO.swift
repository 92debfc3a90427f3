import COpenSSL

/// An owned memory `BIO`: OpenSSL's in-memory stream for its PEM, PKCS#12 and CMS functions.
package final class MemoryBIO {
    /// The `BIO *`, valid while this object lives.
    package let pointer: OpaquePointer

    /// An empty, writable BIO.
    package init() throws(OpenSSLError) {
        pointer = try check(BIO_new(BIO_s_mem()), "allocate a memory BIO")
    }

    /// A BIO holding a copy of `bytes` (`BIO_new_mem_buf` would not copy, so the bytes are written).
    package convenience init(bytes: [UInt8]) throws(OpenSSLError) {
        try self.init()
        guard !bytes.isEmpty else { return }
        let written = bytes.withUnsafeBytes { BIO_write(pointer, $0.baseAddress, Int32($0.count)) }
        try check(written == Int32(bytes.count), "buffer \(bytes.count) bytes")
    }

    deinit { BIO_free(pointer) }

    /// Everything written so far.
    package var contents: [UInt8] {
        var data: UnsafeMutablePointer<CChar>?
        let length = shim_BIO_get_mem_data(pointer, &data)
        guard length > 0, let data else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }
}
