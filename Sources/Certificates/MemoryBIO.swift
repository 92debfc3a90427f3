import COpenSSL

/// An owned memory BIO.
final class MemoryBIO {
    let bio: OpaquePointer

    /// An empty, writable BIO.
    init?() {
        guard let method = BIO_s_mem(), let bio = BIO_new(method) else { return nil }
        self.bio = bio
    }

    /// A BIO holding a copy of `bytes` (BIO_new_mem_buf does not copy, so we write instead).
    convenience init?(bytes: [UInt8]) {
        self.init()
        if !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, Int32($0.count)) }
            guard written == Int32(bytes.count) else { return nil }
        }
    }

    deinit { BIO_free(bio) }

    /// Everything written so far.
    var contents: [UInt8] {
        var pointer: UnsafeMutablePointer<CChar>?
        let length = shim_BIO_get_mem_data(bio, &pointer)
        guard length > 0, let pointer else { return [] }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }
}
