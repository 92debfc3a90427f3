import Foundation

/// Bytes at a fixed address for as long as the object lives.
///
/// libzip reads added data only at zip_close; compressed template files (CompressedFile) keep
/// their bytes here and are read in place instead of being copied for every bundle.
final class StableBytes: @unchecked Sendable {
    // Safe because the buffer is written once in init and only read afterwards.
    let buffer: UnsafeMutableRawBufferPointer

    init(_ bytes: [UInt8]) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress, let target = buffer.baseAddress { target.copyMemory(from: base, byteCount: source.count) }
        }
        self.buffer = buffer
        count = bytes.count
    }

    /// Number of meaningful bytes (the allocation has at least one byte).
    let count: Int

    deinit { buffer.deallocate() }
}
