import Foundation

/// What the process costs the machine, read from `/proc/self` (Linux).
enum ProcessStatistics {
    /// Resident memory in bytes (`/proc/self/statm`: resident pages × page size); nil if unreadable.
    static func residentMemoryBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Open file descriptors (entries of `/proc/self/fd`); nil if unreadable.
    static func openFileDescriptors() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count
    }
}
