import Foundation

/// What a template folder looks like from outside: each file's path, size and modification time.
///
/// Cheap to take (one `stat` per file, nothing read) and compared to tell that a file was edited,
/// added or removed, so `TemplateStore` reloads a template only when it changed. Hidden files are
/// skipped, as `Template.load` skips them (an editor's swap file changes no template).
struct TemplateFolderStamp: Equatable, Sendable {
    /// One file's size and modification time (seconds and nanoseconds since 1970).
    struct Entry: Equatable, Sendable {
        let path: String
        let size: Int64
        let seconds: Int64
        let nanoseconds: Int64
    }

    let entries: [Entry]

    /// The stamp of `directory`; nil when it cannot be listed (removed, unreadable).
    init?(directory: String) {
        guard let paths = try? FileManager.default.subpathsOfDirectory(atPath: directory) else { return nil }
        var entries: [Entry] = []
        for relative in paths.sorted() where !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
            // stat, not lstat: a linked file is stamped as what Template.load reads through the link.
            var status = stat()
            guard stat(directory + "/" + relative, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
            #if os(Linux)
            let modified = status.st_mtim
            #else
            let modified = status.st_mtimespec
            #endif
            entries.append(Entry(path: relative, size: Int64(status.st_size), seconds: Int64(modified.tv_sec), nanoseconds: Int64(modified.tv_nsec)))
        }
        self.entries = entries
    }
}
