// Writes a zip archive into memory with libzip: how a template's files are compressed once
// (`compress`). Bundles themselves are laid out by BundleArchive.swift around those bytes.
//
// Threading: each call owns its own zip_t and source; nothing mutable is shared, so concurrent
// calls are safe. libzip reads the added data only at zip_close, so the bytes are handed over as
// a malloc'd copy that libzip frees.

import ByteEncoding
import CZip
import Foundation

enum ZipWriter {
    /// The instant whose local time is 2020-01-01 12:00:00, so every entry carries that DOS date
    /// and time whatever the server's time zone, and equal inputs give equal archives on any
    /// server. Zip stores local wall-clock fields and libzip fills them with localtime(), so the
    /// instant is worked out once per process with mktime(); libzip also gets a time_t rather
    /// than DOS fields because its DOS-time path calls mktime for every entry, which makes glibc
    /// stat /etc/localtime each time.
    static let modificationTime: time_t = {
        var fields = tm()
        fields.tm_year = 2020 - 1900
        fields.tm_mon = 0
        fields.tm_mday = 1
        fields.tm_hour = 12
        fields.tm_isdst = -1
        let local = mktime(&fields)
        return local == -1 ? time_t(1_577_880_000) : local
    }()

    /// A new archive holding `entries`, stored, or deflated at the best level when `deflate` is set.
    static func archive(_ entries: [(path: String, bytes: [UInt8])], deflate: Bool = false) throws(PassBundleError) -> [UInt8] {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(nil, 0, 0, &error) else { throw failure("cannot create a memory source", &error) }
        // Keep the source alive after zip_close so we can read the finished archive back.
        zip_source_keep(source)
        defer { zip_source_free(source) }
        guard let archive = zip_open_from_source(source, ZIP_TRUNCATE, &error) else { throw failure("cannot open the archive", &error) }
        for entry in entries {
            guard let fileSource = makeSource(archive, entry.bytes) else {
                zip_discard(archive)
                throw PassBundleError(.zipFailed, "cannot add \(entry.path) to the archive")
            }
            let index = zip_file_add(archive, entry.path, fileSource, zip_flags_t(ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE))
            guard index >= 0 else {
                zip_source_free(fileSource)
                zip_discard(archive)
                throw PassBundleError(.zipFailed, "cannot add \(entry.path) to the archive")
            }
            let method = deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE
            guard zip_set_file_compression(archive, zip_uint64_t(index), method, deflate ? 9 : 0) == 0,
                  zip_file_set_mtime(archive, zip_uint64_t(index), modificationTime, 0) == 0 else {
                zip_discard(archive)
                throw PassBundleError(.zipFailed, "cannot set the attributes of \(entry.path)")
            }
        }
        guard zip_close(archive) == 0 else {
            let message = String(cString: zip_strerror(archive))
            zip_discard(archive)
            throw PassBundleError(.zipFailed, "cannot finish the archive: \(message)")
        }
        return try readAll(source)
    }

    private static func makeSource(_ archive: OpaquePointer, _ bytes: [UInt8]) -> OpaquePointer? {
        guard let copy = malloc(max(bytes.count, 1)) else { return nil }
        bytes.withUnsafeBytes { if let base = $0.baseAddress { memcpy(copy, base, $0.count) } }
        guard let source = zip_source_buffer(archive, copy, zip_uint64_t(bytes.count), 1) else {
            free(copy)
            return nil
        }
        return source
    }

    /// Deflates `files` once through a throwaway archive and returns each entry's raw compressed
    /// bytes with its CRC, so later archives can include them without reading them again.
    static func compress(_ files: [(path: String, bytes: [UInt8])]) throws(PassBundleError) -> [CompressedFile] {
        let zipped = try archive(files, deflate: true)
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        // Copied to a stable address: libzip reads it until zip_discard.
        let stable = StableBytes(zipped)
        return try withExtendedLifetime(stable) { () throws(PassBundleError) -> [CompressedFile] in
            let raw = UnsafeRawBufferPointer(start: stable.buffer.baseAddress, count: stable.count)
            // freep = 0 and the archive is discarded, never written: `stable` stays ours.
            guard let source = zip_source_buffer_create(raw.baseAddress, zip_uint64_t(raw.count), 0, &error) else {
                throw failure("cannot create a memory source", &error)
            }
            guard let archive = zip_open_from_source(source, ZIP_RDONLY, &error) else {
                zip_source_free(source)
                throw failure("cannot reopen the compressed template", &error)
            }
            defer { zip_discard(archive) }
            var result: [CompressedFile] = []
            for index in 0..<zip_uint64_t(max(zip_get_num_entries(archive, 0), 0)) {
                var stat = zip_stat_t()
                zip_stat_init(&stat)
                guard zip_stat_index(archive, index, 0, &stat) == 0, let name = stat.name,
                      let file = zip_fopen_index(archive, index, zip_flags_t(ZIP_FL_COMPRESSED)) else {
                    throw PassBundleError(.zipFailed, "cannot read back compressed template entry \(index)")
                }
                defer { zip_fclose(file) }
                var read: Int64 = -1
                let bytes = [UInt8](unsafeUninitializedCapacity: Int(stat.comp_size)) { buffer, count in
                    read = buffer.baseAddress.map { zip_fread(file, $0, stat.comp_size) } ?? 0
                    count = read == Int64(stat.comp_size) ? Int(stat.comp_size) : 0
                }
                guard read == Int64(stat.comp_size) else { throw PassBundleError(.zipFailed, "cannot read back compressed template entry \(index)") }
                result.append(CompressedFile(path: String(cString: name), data: bytes, crc: stat.crc, size: stat.size, method: stat.comp_method))
            }
            return result
        }
    }

    private static func readAll(_ source: OpaquePointer) throws(PassBundleError) -> [UInt8] {
        guard zip_source_open(source) == 0 else { throw PassBundleError(.zipFailed, "cannot reopen the finished archive") }
        defer { zip_source_close(source) }
        guard zip_source_seek(source, 0, SEEK_END) == 0 else { throw PassBundleError(.zipFailed, "cannot measure the archive") }
        let size = zip_source_tell(source)
        guard size >= 0, zip_source_seek(source, 0, SEEK_SET) == 0 else { throw PassBundleError(.zipFailed, "cannot measure the archive") }
        var read: Int64 = -1
        let bytes = [UInt8](unsafeUninitializedCapacity: Int(size)) { buffer, count in
            read = zip_source_read(source, buffer.baseAddress, zip_uint64_t(size))
            count = read == size ? Int(size) : 0
        }
        guard read == size else { throw PassBundleError(.zipFailed, "cannot read the archive back") }
        return bytes
    }

    private static func failure(_ message: String, _ error: inout zip_error_t) -> PassBundleError {
        PassBundleError(.zipFailed, "\(message): \(String(cString: zip_error_strerror(&error)))")
    }
}
