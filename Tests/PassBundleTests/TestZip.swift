import CZip
import Foundation

/// Writes zip archives in memory with libzip for the import tests, including entries that no
/// honest tool makes (`../` paths, symbolic links).
enum TestZip {
    /// One entry: a file, or a folder when `directory` is set.
    struct Entry {
        var path: String
        var bytes: [UInt8] = []
        /// Unix file type and permissions recorded for the entry (`0o120777`: a symbolic link).
        var unixMode: UInt32?
        var directory = false
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Files deflated, in the order given.
    static func archive(_ entries: [Entry]) throws -> [UInt8] {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(nil, 0, 0, &error) else { throw Failure(description: "no memory source") }
        zip_source_keep(source)
        defer { zip_source_free(source) }
        guard let archive = zip_open_from_source(source, ZIP_TRUNCATE, &error) else { throw Failure(description: "cannot open the archive") }
        for entry in entries {
            let index: Int64
            if entry.directory {
                index = zip_dir_add(archive, entry.path, zip_flags_t(ZIP_FL_ENC_UTF_8))
            } else {
                guard let copy = malloc(max(entry.bytes.count, 1)) else { throw Failure(description: "out of memory") }
                entry.bytes.withUnsafeBytes { if let base = $0.baseAddress { memcpy(copy, base, $0.count) } }
                guard let fileSource = zip_source_buffer(archive, copy, zip_uint64_t(entry.bytes.count), 1) else {
                    free(copy)
                    zip_discard(archive)
                    throw Failure(description: "cannot add \(entry.path)")
                }
                index = zip_file_add(archive, entry.path, fileSource, zip_flags_t(ZIP_FL_ENC_UTF_8))
                if index < 0 { zip_source_free(fileSource) }
            }
            guard index >= 0 else {
                zip_discard(archive)
                throw Failure(description: "cannot add \(entry.path)")
            }
            if let mode = entry.unixMode {
                guard zip_file_set_external_attributes(archive, zip_uint64_t(index), 0, zip_uint8_t(ZIP_OPSYS_UNIX), mode << 16) == 0 else {
                    zip_discard(archive)
                    throw Failure(description: "cannot set the attributes of \(entry.path)")
                }
            }
        }
        guard zip_close(archive) == 0 else {
            zip_discard(archive)
            throw Failure(description: "cannot finish the archive")
        }
        guard zip_source_open(source) == 0 else { throw Failure(description: "cannot reopen the archive") }
        defer { zip_source_close(source) }
        zip_source_seek(source, 0, SEEK_END)
        let size = zip_source_tell(source)
        zip_source_seek(source, 0, SEEK_SET)
        var bytes = [UInt8](repeating: 0, count: Int(max(size, 0)))
        let read = bytes.withUnsafeMutableBytes { zip_source_read(source, $0.baseAddress, zip_uint64_t($0.count)) }
        guard size > 0, read == size else { throw Failure(description: "cannot read the archive back") }
        return bytes
    }

    /// An archive of `files` (path → bytes), sorted by path, each under `folder` when given.
    static func archive(_ files: [String: [UInt8]], under folder: String? = nil) throws -> [UInt8] {
        let prefix = folder.map { $0 + "/" } ?? ""
        return try archive(files.sorted { $0.key < $1.key }.map { Entry(path: prefix + $0.key, bytes: $0.value) })
    }
}
