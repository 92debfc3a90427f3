// Reads files out of a `.pkpass` (a zip archive) in memory with libzip, as a phone unpacks a pass.
//
// Threading: each call owns its archive handle; the bytes are read in place and must outlive the
// call, which they do (the archive is discarded before returning).

import CZip

enum PassArchive {
    /// The archive's files named in `names` (every file when nil), by path.
    static func files(_ bytes: [UInt8], named names: Set<String>? = nil) throws(FleetError) -> [String: [UInt8]] {
        let result: Result<[String: [UInt8]], FleetError> = bytes.withUnsafeBytes { buffer in
            var error = zip_error_t()
            zip_error_init(&error)
            defer { zip_error_fini(&error) }
            guard let source = zip_source_buffer_create(buffer.baseAddress, zip_uint64_t(buffer.count), 0, &error) else {
                return .failure(FleetError(.invalidPass, "cannot read the pass archive"))
            }
            guard let archive = zip_open_from_source(source, ZIP_RDONLY, &error) else {
                zip_source_free(source)
                return .failure(FleetError(.invalidPass, "not a zip archive"))
            }
            defer { zip_discard(archive) }
            return Result { () throws(FleetError) in try read(archive, names: names) }
        }
        return try result.get()
    }

    private static func read(_ archive: OpaquePointer, names: Set<String>?) throws(FleetError) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let count = zip_get_num_entries(archive, 0)
        guard count >= 0 else { throw FleetError(.invalidPass, "unreadable zip directory") }
        for index in 0..<zip_uint64_t(count) {
            var stat = zip_stat_t()
            zip_stat_init(&stat)
            guard zip_stat_index(archive, index, 0, &stat) == 0, let cName = stat.name else {
                throw FleetError(.invalidPass, "unreadable zip entry")
            }
            let name = String(cString: cName)
            if name.hasSuffix("/") { continue }
            if let names, !names.contains(name) { continue }
            // A pass is well under a few MB; refuse anything that claims more.
            guard stat.size <= 16 << 20 else { throw FleetError(.invalidPass, "\(name) is too large") }
            guard let file = zip_fopen_index(archive, index, 0) else { throw FleetError(.invalidPass, "cannot open \(name)") }
            defer { zip_fclose(file) }
            var content = [UInt8](repeating: 0, count: Int(stat.size))
            let read = content.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, zip_uint64_t($0.count)) }
            guard read == Int64(stat.size) else { throw FleetError(.invalidPass, "cannot inflate \(name)") }
            files[name] = content
        }
        return files
    }
}
