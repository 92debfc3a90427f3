/// Bytes at a fixed address for as long as the object lives, shared without copying.
///
/// C libraries that read a buffer later than the call that hands it over (libzip at zip_close,
/// libmicrohttpd while it sends a response) are given this object's address and keep the object
/// alive until they are done. A template's files built once are shared this way by every bundle.
public final class StableBytes: @unchecked Sendable {
    // Safe because the buffer is written once in init and only read afterwards.
    public let buffer: UnsafeMutableRawBufferPointer

    public init(_ bytes: [UInt8]) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress, let target = buffer.baseAddress { target.copyMemory(from: base, byteCount: source.count) }
        }
        self.buffer = buffer
        count = bytes.count
    }

    /// Number of meaningful bytes (the allocation has at least one byte).
    public let count: Int

    /// A copy of the bytes.
    public var bytes: [UInt8] { Array(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count)) }

    /// `runs` one after the other, as one array.
    public static func joined(_ runs: [StableBytes]) -> [UInt8] {
        var joined: [UInt8] = []
        joined.reserveCapacity(runs.reduce(0) { $0 + $1.count })
        for run in runs { joined += UnsafeRawBufferPointer(start: run.buffer.baseAddress, count: run.count) }
        return joined
    }

    deinit { buffer.deallocate() }
}
