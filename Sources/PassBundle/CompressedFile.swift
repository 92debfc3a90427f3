// A template file deflated once, added to every archive as already-compressed data.
//
// libzip recomputes the CRC of every stored entry when it writes an archive, and deflates every
// deflated one. A template's images and localizations never change between passes, so they are
// compressed once, when the template loads (by libzip itself: a throwaway archive is written and
// its entries are read back raw), and each bundle hands libzip a source that reports the known
// CRC, sizes and method. libzip then copies the bytes as they are.
//
// Threading: a CompressedFile is immutable and shared by every thread. Each archive gets its own
// source state (read position, error), created for that archive and freed by libzip.

import CZip
import Foundation

/// One file's deflated bytes with the metadata libzip needs to copy them unread.
final class CompressedFile: Sendable {
    let path: String
    let data: StableBytes
    let crc: UInt32
    let size: UInt64
    let method: UInt16

    init(path: String, data: [UInt8], crc: UInt32, size: UInt64, method: UInt16) {
        self.path = path
        self.data = StableBytes(data)
        self.crc = crc
        self.size = size
        self.method = method
    }

    /// A libzip source for `archive` that yields the compressed bytes; nil if libzip refuses it.
    func source(for archive: OpaquePointer) -> OpaquePointer? {
        let state = Unmanaged.passRetained(SourceState(file: self))
        guard let source = zip_source_function(archive, compressedFileCallback, state.toOpaque()) else {
            state.release()
            return nil
        }
        return source
    }
}

/// Per-source read position: libzip opens a source once per archive it writes.
private final class SourceState {
    let file: CompressedFile
    var offset = 0
    var error = zip_error_t()

    init(file: CompressedFile) {
        self.file = file
        zip_error_init(&error)
    }

    deinit { zip_error_fini(&error) }
}

private let supportedCommands: Int64 = [
    ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, ZIP_SOURCE_SUPPORTS,
].reduce(0) { $0 | (Int64(1) << Int64($1.rawValue)) }

private func compressedFileCallback(
    _ userdata: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?, _ length: zip_uint64_t, _ command: zip_source_cmd_t
) -> zip_int64_t {
    guard let userdata else { return -1 }
    let unmanaged = Unmanaged<SourceState>.fromOpaque(userdata)
    let state = unmanaged.takeUnretainedValue()
    switch command {
    case ZIP_SOURCE_OPEN:
        state.offset = 0
        return 0
    case ZIP_SOURCE_READ:
        let stored = state.file.data
        let count = min(Int(clamping: length), stored.count - state.offset)
        if count > 0, let data, let base = stored.buffer.baseAddress {
            data.copyMemory(from: base + state.offset, byteCount: count)
            state.offset += count
        }
        return zip_int64_t(max(count, 0))
    case ZIP_SOURCE_CLOSE:
        return 0
    case ZIP_SOURCE_STAT:
        guard let data, length >= MemoryLayout<zip_stat_t>.size else {
            zip_error_set(&state.error, ZIP_ER_INVAL, 0)
            return -1
        }
        let stat = data.assumingMemoryBound(to: zip_stat_t.self)
        zip_stat_init(stat)
        stat.pointee.valid = zip_uint64_t(ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_CRC | ZIP_STAT_COMP_METHOD | ZIP_STAT_ENCRYPTION_METHOD)
        stat.pointee.size = state.file.size
        stat.pointee.comp_size = zip_uint64_t(state.file.data.count)
        stat.pointee.crc = state.file.crc
        stat.pointee.comp_method = state.file.method
        stat.pointee.encryption_method = zip_uint16_t(ZIP_EM_NONE)
        return zip_int64_t(MemoryLayout<zip_stat_t>.size)
    case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&state.error, data, length)
    case ZIP_SOURCE_FREE:
        unmanaged.release()
        return 0
    case ZIP_SOURCE_SUPPORTS:
        return supportedCommands
    default:
        zip_error_set(&state.error, ZIP_ER_OPNOTSUPP, 0)
        return -1
    }
}
