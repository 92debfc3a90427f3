// A signed bundle's zip archive in two runs of bytes: the template's files, laid out once when the
// template loads and shared by every pass of it, then the pass's own files (pass.json,
// manifest.json, signature) with the archive's central directory. However large a design's images
// are, a pass costs only its own few kilobytes: nothing of the template is copied per pass, and a
// server sends both runs as they are (libmicrohttpd's I/O vectors).
//
// The layout is plain zip (PKWARE APPNOTE 6.3): a local header before each entry's bytes, a
// central directory naming every entry at its offset, and the end-of-central-directory record.
// The template's entries are compressed by libzip (ZipWriter.compress); per-pass entries are
// stored, as deflate's setup costs more than the few kilobytes of text would save. Every entry
// carries the same DOS time, 2020-01-01 12:00:00, so equal inputs give equal archives.
//
// Threading: a TemplateArchive is immutable and shared by every thread.

public import ByteEncoding
import CZlib

/// What a zip archive records about one entry, in the local header and the central directory.
struct ZipEntryRecord: Sendable {
    let name: [UInt8]
    let method: UInt16
    let crc: UInt32
    let compressedSize: UInt32
    let size: UInt32
    /// Where the entry's local header starts.
    let offset: UInt32

    /// Bit 11 of the general purpose flags: the name is UTF-8.
    var flags: UInt16 { name.contains { $0 >= 0x80 } ? 0x0800 : 0 }
}

/// The byte records of the zip format.
enum ZipFormat {
    static let localHeaderSignature: UInt32 = 0x0403_4B50
    static let centralHeaderSignature: UInt32 = 0x0201_4B50
    static let endSignature: UInt32 = 0x0605_4B50
    /// Version 2.0: deflate, folders.
    static let versionNeeded: UInt16 = 20
    /// Made by Unix (3) at version 2.0, so the external attributes are Unix file modes.
    static let versionMadeBy: UInt16 = 3 << 8 | 20
    /// A regular file, rw-r--r--.
    static let externalAttributes: UInt32 = 0o100644 << 16
    /// 12:00:00 and 2020-01-01 in MS-DOS fields.
    static let dosTime: UInt16 = 12 << 11
    static let dosDate: UInt16 = (2020 - 1980) << 9 | 1 << 5 | 1
    static let localHeaderSize = 30
    static let centralHeaderSize = 46
    static let endRecordSize = 22

    static func append(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// The local header of `entry` (its bytes follow it).
    static func appendLocalHeader(_ entry: ZipEntryRecord, to bytes: inout [UInt8]) {
        append(localHeaderSignature, to: &bytes)
        appendSharedFields(entry, to: &bytes)
        bytes += entry.name
    }

    /// The fields a local header and a central directory header both carry, in the same order:
    /// version needed, flags, method, DOS time and date, CRC, sizes, name length, extra length (0).
    private static func appendSharedFields(_ entry: ZipEntryRecord, to bytes: inout [UInt8]) {
        append(versionNeeded, to: &bytes)
        append(entry.flags, to: &bytes)
        append(entry.method, to: &bytes)
        append(dosTime, to: &bytes)
        append(dosDate, to: &bytes)
        append(entry.crc, to: &bytes)
        append(entry.compressedSize, to: &bytes)
        append(entry.size, to: &bytes)
        append(UInt16(entry.name.count), to: &bytes)
        append(UInt16(0), to: &bytes)  // extra field
    }

    /// The central directory's header of each of `entries`.
    static func appendCentralHeaders(_ entries: [ZipEntryRecord], to bytes: inout [UInt8]) {
        for entry in entries {
            append(centralHeaderSignature, to: &bytes)
            append(versionMadeBy, to: &bytes)
            appendSharedFields(entry, to: &bytes)
            append(UInt16(0), to: &bytes)  // comment
            append(UInt16(0), to: &bytes)  // disk number
            append(UInt16(0), to: &bytes)  // internal attributes
            append(externalAttributes, to: &bytes)
            append(entry.offset, to: &bytes)
            bytes += entry.name
        }
    }

    /// The end record of a central directory of `entries` headers, `size` bytes, at `offset`.
    static func appendEndRecord(entries: Int, size: UInt32, at offset: UInt32, to bytes: inout [UInt8]) {
        append(endSignature, to: &bytes)
        append(UInt16(0), to: &bytes)  // this disk
        append(UInt16(0), to: &bytes)  // the directory's disk
        append(UInt16(entries), to: &bytes)
        append(UInt16(entries), to: &bytes)
        append(size, to: &bytes)
        append(offset, to: &bytes)
        append(UInt16(0), to: &bytes)  // comment
    }

    /// The CRC-32 of `bytes` (zlib's).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            UInt32(CZlib.crc32_z(0, buffer.baseAddress, buffer.count))
        }
    }

    /// Zip without the ZIP64 extension counts in 32 bits and 16 bits.
    static func fits(size: Int, entries: Int) -> Bool {
        size < Int(UInt32.max) && entries < Int(UInt16.max)
    }
}

/// A template's files as the first run of every bundle's archive: each file's local header and
/// compressed bytes, and the records the central directory repeats.
final class TemplateArchive: Sendable {
    let run: StableBytes
    let entries: [ZipEntryRecord]
    /// The central directory's headers of `entries`, the same in every bundle (the template's
    /// files lie at the same offsets in each): written once, copied per pass.
    let centralHeaders: [UInt8]

    init(_ files: [CompressedFile]) throws(PassBundleError) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(files.reduce(0) { $0 + ZipFormat.localHeaderSize + $1.path.utf8.count + $1.data.count })
        var entries: [ZipEntryRecord] = []
        for file in files {
            guard ZipFormat.fits(size: bytes.count + file.data.count + Int(file.size), entries: entries.count + 4) else {
                throw PassBundleError(.zipFailed, "the template's files are too large for one bundle")
            }
            let entry = ZipEntryRecord(
                name: Array(file.path.utf8), method: file.method, crc: file.crc, compressedSize: UInt32(file.data.count),
                size: UInt32(file.size), offset: UInt32(bytes.count)
            )
            ZipFormat.appendLocalHeader(entry, to: &bytes)
            bytes += file.data
            entries.append(entry)
        }
        run = StableBytes(bytes)
        self.entries = entries
        var headers: [UInt8] = []
        ZipFormat.appendCentralHeaders(entries, to: &headers)
        centralHeaders = headers
    }

    /// The second run of a bundle: `files` stored after the template's run, then the central
    /// directory of every entry.
    func tail(_ files: [(path: String, bytes: [UInt8])]) throws(PassBundleError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(files.reduce(0) { $0 + 2 * ZipFormat.localHeaderSize + 2 * $1.path.utf8.count + $1.bytes.count }
            + entries.reduce(0) { $0 + ZipFormat.centralHeaderSize + $1.name.count } + ZipFormat.endRecordSize)
        var own: [ZipEntryRecord] = []
        for file in files {
            let offset = run.count + bytes.count
            guard ZipFormat.fits(size: offset + file.bytes.count, entries: entries.count + own.count) else {
                throw PassBundleError(.zipFailed, "the bundle is too large for a zip archive")
            }
            let entry = ZipEntryRecord(
                name: Array(file.path.utf8), method: 0, crc: ZipFormat.crc32(file.bytes), compressedSize: UInt32(file.bytes.count),
                size: UInt32(file.bytes.count), offset: UInt32(offset)
            )
            ZipFormat.appendLocalHeader(entry, to: &bytes)
            bytes += file.bytes
            own.append(entry)
        }
        let directory = run.count + bytes.count
        let count = entries.count + own.count
        guard ZipFormat.fits(size: directory, entries: count) else { throw PassBundleError(.zipFailed, "the bundle is too large for a zip archive") }
        let start = bytes.count
        bytes += centralHeaders
        ZipFormat.appendCentralHeaders(own, to: &bytes)
        ZipFormat.appendEndRecord(entries: count, size: UInt32(bytes.count - start), at: UInt32(directory), to: &bytes)
        return bytes
    }
}

/// A signed `.pkpass` as the two runs of its zip archive: the template's files, shared with every
/// other pass of the template, and this pass's own files with the central directory. `bytes` is
/// the whole archive; a server sends `runs` one after the other instead of joining them.
public struct SignedBundle: Sendable {
    /// The template's run (shared), then the pass's.
    public let runs: [StableBytes]

    init(template: StableBytes, tail: [UInt8]) {
        runs = [template, StableBytes(tail)]
    }

    /// The archive's size.
    public var count: Int { runs.reduce(0) { $0 + $1.count } }

    /// The bytes of this pass alone (the shared template run is not counted).
    public var ownCount: Int { runs.dropFirst().reduce(0) { $0 + $1.count } }

    /// The whole archive, joined.
    public var bytes: [UInt8] { StableBytes.joined(runs) }
}
