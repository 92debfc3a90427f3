import Foundation

/// A system call that failed, with the `errno` text captured where it failed.
package struct SystemCallError: Error, Sendable, CustomStringConvertible {
    /// The call, e.g. `pipe`.
    package let call: String
    package let errno: Int32

    /// Captures the calling thread's `errno` now.
    package init(_ call: String, errno: Int32 = Foundation.errno) {
        self.call = call
        self.errno = errno
    }

    package var description: String { "\(call) failed: \(String(cString: strerror(errno)))" }
}
