// Reads an uploaded zip archive into memory with libzip, within limits.
//
// The archive comes from someone else (a Pass Designer template zipped for upload), so nothing in
// it is trusted: the central directory is checked in full before a byte is inflated (entry count,
// the sum of the declared sizes, names, file types, encryption), and every entry is then read to
// exactly its declared size, one more byte proving that it holds no more than it claims. Names are
// checked as paths (no absolute paths, no `..`, no backslashes) although nothing is written to
// disk here, because whoever stores the files later may.
//
// Threading: each call owns its zip_t; the archive's bytes are read in place and outlive the
// call. libzip blocks (inflating up to the size limit): call this from a thread of your own, not
// from Swift's cooperative pool.

import CZip

/// The bounds an uploaded archive must stay within.
public struct ArchiveLimits: Sendable, Equatable {
    /// The most bytes all entries may hold once inflated, together.
    public var maxUncompressedSize: Int
    /// The most entries (files and folders, macOS's extras included) the archive may list.
    public var maxEntries: Int

    public init(maxUncompressedSize: Int = 20 << 20, maxEntries: Int = 200) {
        self.maxUncompressedSize = maxUncompressedSize
        self.maxEntries = maxEntries
    }
}

enum ZipReader {
    /// The archive's regular files by path, without folders and without the extras macOS adds
    /// when it zips a folder (`__MACOSX/…`, `.DS_Store` and other hidden files).
    static func files(_ bytes: [UInt8], limits: ArchiveLimits) throws(PassBundleError) -> [String: [UInt8]] {
        let result: Result<[String: [UInt8]], PassBundleError> = bytes.withUnsafeBytes { buffer in
            var error = zip_error_t()
            zip_error_init(&error)
            defer { zip_error_fini(&error) }
            guard let source = zip_source_buffer_create(buffer.baseAddress, zip_uint64_t(buffer.count), 0, &error) else {
                return .failure(failure("cannot read the archive", &error))
            }
            // Without ZIP_CHECKCONS: libzip 1.7's consistency check refuses the archives macOS's
            // Finder makes (their local headers differ from the central directory). The sizes
            // and CRCs that matter are checked while reading (see inflate).
            guard let archive = zip_open_from_source(source, ZIP_RDONLY, &error) else {
                zip_source_free(source)
                return .failure(failure("not a readable zip archive", &error))
            }
            defer { zip_discard(archive) }
            return Result { () throws(PassBundleError) in try read(archive, limits: limits) }
        }
        return try result.get()
    }

    /// One entry worth reading, as its directory entry describes it.
    private struct Listed {
        let index: zip_uint64_t
        let path: String
        let size: Int
    }

    private static func read(_ archive: OpaquePointer, limits: ArchiveLimits) throws(PassBundleError) -> [String: [UInt8]] {
        let count = zip_get_num_entries(archive, 0)
        guard count >= 0 else { throw PassBundleError(.invalidArchive, "the archive's directory is unreadable") }
        guard count <= limits.maxEntries else {
            throw PassBundleError(.invalidArchive, "the archive lists \(count) entries; at most \(limits.maxEntries) are accepted")
        }
        var listed: [Listed] = []
        var seen = Set<String>()
        var total = 0
        // Every entry's problem is collected (an upload is refused with all of them at once);
        // only the size bound stops the listing early.
        var issues: [PassBundleError.Issue] = []
        for index in 0..<zip_uint64_t(count) {
            var stat = zip_stat_t()
            zip_stat_init(&stat)
            guard zip_stat_index(archive, index, 0, &stat) == 0, let cName = stat.name,
                  stat.valid & zip_uint64_t(ZIP_STAT_SIZE) != 0 else {
                throw PassBundleError(.invalidArchive, "entry \(index) of the archive is unreadable")
            }
            let name = String(cString: cName)
            var problems: [String] = []
            if let problem = pathProblem(name) { problems.append(problem) }
            if let problem = typeProblem(archive, index) { problems.append(problem) }
            if stat.valid & zip_uint64_t(ZIP_STAT_ENCRYPTION_METHOD) != 0, stat.encryption_method != zip_uint16_t(ZIP_EM_NONE) {
                problems.append("is encrypted")
            }
            if !seen.insert(name).inserted { problems.append("is in the archive twice") }
            issues += problems.map { PassBundleError.Issue(key: name, problem: $0) }
            // Declared sizes are added up before anything is inflated.
            guard stat.size <= zip_uint64_t(max(limits.maxUncompressedSize - total, 0)) else {
                throw PassBundleError(.invalidArchive, "the archive holds more than \(limits.maxUncompressedSize) bytes once uncompressed")
            }
            total += Int(stat.size)
            if !problems.isEmpty || name.hasSuffix("/") || isJunk(name) { continue }
            listed.append(Listed(index: index, path: name, size: Int(stat.size)))
        }
        guard issues.isEmpty else {
            let reasons = issues.map { "the archive's entry \($0.key) \($0.problem)" }
            throw PassBundleError(.invalidArchive, reasons.joined(separator: "; "), issues: issues)
        }
        var files: [String: [UInt8]] = [:]
        for entry in listed { files[entry.path] = try inflate(archive, entry) }
        return files
    }

    /// Reads one entry: exactly its declared size, and nothing after it.
    private static func inflate(_ archive: OpaquePointer, _ entry: Listed) throws(PassBundleError) -> [UInt8] {
        guard let file = zip_fopen_index(archive, entry.index, 0) else {
            throw PassBundleError(.invalidArchive, "cannot open \(entry.path) in the archive: \(String(cString: zip_strerror(archive)))")
        }
        defer { zip_fclose(file) }
        var content = [UInt8](repeating: 0, count: entry.size)
        let read = content.withUnsafeMutableBytes { buffer in
            buffer.baseAddress.map { zip_fread(file, $0, zip_uint64_t(buffer.count)) } ?? 0
        }
        // libzip checks the CRC when the entry's end is reached: the extra byte's read reaches it.
        var extra: UInt8 = 0
        let after = zip_fread(file, &extra, 1)
        guard read == Int64(entry.size), after == 0 else {
            if after > 0 { throw PassBundleError(.invalidArchive, "\(entry.path) in the archive holds more than the \(entry.size) bytes it declares") }
            throw PassBundleError(.invalidArchive, "\(entry.path) in the archive is damaged: \(String(cString: zip_file_strerror(file)))")
        }
        return content
    }

    /// Why `name` is not a safe relative path, or nil.
    static func pathProblem(_ name: String) -> String? {
        if name.isEmpty { return "has an empty name" }
        if name.hasPrefix("/") { return "has an absolute path" }
        if name.contains("\\") { return "has a backslash in its path" }
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        // A folder's entry ends with "/": its last component is empty.
        for (position, component) in components.enumerated() {
            if component == ".." { return "leaves the archive's folder (..)" }
            if component == "." || (component.isEmpty && position != components.count - 1) { return "has an empty or \".\" path component" }
        }
        return nil
    }

    /// Why entry `index` is not a regular file or folder (a symbolic link, a device …), or nil.
    /// Only archives made on Unix-like systems record file types.
    private static func typeProblem(_ archive: OpaquePointer, _ index: zip_uint64_t) -> String? {
        var system: zip_uint8_t = 0
        var attributes: zip_uint32_t = 0
        guard zip_file_get_external_attributes(archive, index, 0, &system, &attributes) == 0 else { return "has unreadable attributes" }
        guard system == zip_uint8_t(ZIP_OPSYS_UNIX) else { return nil }
        let type = (attributes >> 16) & 0o170000
        switch type {
        case 0, 0o100000, 0o040000: return nil
        case 0o120000: return "is a symbolic link"
        default: return "is not a regular file"
        }
    }

    /// The extras macOS's Finder adds to a zipped folder, and hidden files in general.
    static func isJunk(_ path: String) -> Bool {
        let components = path.split(separator: "/")
        return components.first == "__MACOSX" || components.contains { $0.hasPrefix(".") }
    }

    private static func failure(_ message: String, _ error: inout zip_error_t) -> PassBundleError {
        PassBundleError(.invalidArchive, "\(message): \(String(cString: zip_error_strerror(&error)))")
    }
}
