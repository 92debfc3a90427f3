import Foundation

/// Files only the server's own user may read, created that way from their first instant.
///
/// The file is written under a temporary name opened with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode
/// 0600 (whatever the umask), then linked to its final name, which fails rather than replaces if
/// the name exists. So there is never a moment when the content is readable by others, a
/// half-written file under the final name, or an existing file (or a planted symlink) overwritten.
enum PrivateFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Creates `path` holding `bytes` with mode 0600. Returns false, writing nothing, when `path`
    /// already exists (another process may have created it first).
    static func create(_ path: String, bytes: [UInt8]) throws -> Bool {
        let temporary = "\(path).\(getpid()).\(Crypto.randomToken(bytes: 6)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(0o600))
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        defer { unlink(temporary) }
        do {
            defer { close(fd) }
            // The umask can only remove bits; make the mode exactly 0600 on our own descriptor.
            guard fchmod(fd, mode_t(0o600)) == 0 else { throw failure("cannot set the mode of \(temporary)") }
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
                guard written > 0 else { throw failure("cannot write \(temporary)") }
                offset += written
            }
            guard fsync(fd) == 0 else { throw failure("cannot flush \(temporary)") }
        }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return false }
            throw failure("cannot create \(path)")
        }
        return true
    }

    private static func failure(_ message: String) -> Failure {
        Failure(description: "\(message): \(String(cString: strerror(errno)))")
    }
}
