// Writes a zip archive into memory with libzip.
//
// Threading: each call owns its own zip_t and source; nothing is shared, so concurrent calls
// are safe. libzip reads the added data only at zip_close, so every file is handed over as a
// malloc'd copy that libzip frees.

import CZip
import Foundation

enum ZipWriter {
    /// One archive entry.
    struct Entry {
        let path: String
        let content: Content
    }

    /// Where an entry's bytes come from.
    enum Content {
        /// Per-bundle data, copied into a buffer libzip frees.
        case owned([UInt8])
        /// Template data that outlives the archive: read in place.
        case stable(StableBytes)
    }

    /// A fixed modification time (2020-01-01T12:00:00Z) so equal inputs give equal archives.
    /// Set as time_t, not DOS time: libzip turns DOS time back with mktime, which makes glibc
    /// stat /etc/localtime for every entry. (The zip stores it in the server's local zone, so
    /// archives are identical across servers that share a time zone.)
    private static let modificationTime = time_t(1_577_880_000)

    static func archive(_ entries: [Entry]) throws(PassBundleError) -> [UInt8] {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(nil, 0, 0, &error) else { throw failure("cannot create a memory source", &error) }
        // Keep the source alive after zip_close so we can read the finished archive back.
        zip_source_keep(source)
        defer { zip_source_free(source) }
        guard let archive = zip_open_from_source(source, ZIP_TRUNCATE, &error) else { throw failure("cannot open the archive", &error) }
        for entry in entries {
            guard let fileSource = makeSource(archive, entry.content) else {
                zip_discard(archive)
                throw PassBundleError(.zipFailed, "cannot add \(entry.path) to the archive")
            }
            let index = zip_file_add(archive, entry.path, fileSource, zip_flags_t(ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE))
            guard index >= 0 else {
                zip_source_free(fileSource)
                zip_discard(archive)
                throw PassBundleError(.zipFailed, "cannot add \(entry.path) to the archive")
            }
            // Stored, not deflated: PNGs are compressed already, and deflate's per-entry setup
            // cost more than the few kilobytes of text it would save.
            guard zip_set_file_compression(archive, zip_uint64_t(index), ZIP_CM_STORE, 0) == 0,
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

    private static func makeSource(_ archive: OpaquePointer, _ content: Content) -> OpaquePointer? {
        switch content {
        case .stable(let stable):
            // freep = 0: the Template keeps the bytes alive until after zip_close.
            return zip_source_buffer(archive, stable.buffer.baseAddress, zip_uint64_t(stable.count), 0)
        case .owned(let bytes):
            guard let copy = malloc(max(bytes.count, 1)) else { return nil }
            bytes.withUnsafeBytes { if let base = $0.baseAddress { memcpy(copy, base, $0.count) } }
            guard let source = zip_source_buffer(archive, copy, zip_uint64_t(bytes.count), 1) else {
                free(copy)
                return nil
            }
            return source
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
