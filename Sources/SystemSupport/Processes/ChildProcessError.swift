import Glibc

/// Why a `ChildProcess` could not be started, waited for or read: the operation and the system's error.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What was being done, for example "cannot start /usr/bin/unzip".
    public var operation: String
    /// The error number (`ENOENT`, `EACCES` …).
    public var code: Int32

    public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}
