import ByteEncoding
import CMicroHTTPD

/// Responses whose body is runs of bytes held elsewhere (`Response.parts`), through
/// libmicrohttpd's I/O vectors: nothing is joined or copied, and the runs stay alive until
/// libmicrohttpd destroys the response.
extension ServerCore {
    /// A libmicrohttpd response sending `parts` in order; nil if one cannot be made.
    static func vectoredResponse(_ parts: [StableBytes]) -> OpaquePointer? {
        let kept = Unmanaged.passRetained(KeptParts(parts))
        let vectors = parts.map { MHD_IoVec(iov_base: UnsafeRawPointer($0.buffer.baseAddress), iov_len: $0.count) }
        // libmicrohttpd copies the vector array itself; the bytes it points at are kept.
        guard let handle = vectors.withUnsafeBufferPointer({
            MHD_create_response_from_iovec($0.baseAddress, UInt32($0.count), partsFree, kept.toOpaque())
        }) else {
            kept.release()
            return nil
        }
        return handle
    }
}

/// The runs of a vectored response, retained for libmicrohttpd until it frees the response.
final class KeptParts: Sendable {
    let parts: [StableBytes]

    init(_ parts: [StableBytes]) { self.parts = parts }
}

let partsFree: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<KeptParts>.fromOpaque(cls).release()
}
