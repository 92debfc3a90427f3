// A self-pipe that wakes a poll() loop's thread when other threads hand it work. Used by the APNs
// client's I/O thread, the fake APNs server and the fleet's event loop.

import Foundation

/// A non-blocking, close-on-exec pipe: other threads `signal()`, the polling thread watches
/// `readEnd` for POLLIN and then `drain()`s it.
package final class WakePipe: Sendable {
    /// Poll this end for POLLIN.
    package let readEnd: Int32
    let writeEnd: Int32

    package init() throws(SystemCallError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw SystemCallError("pipe") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Wakes the poll loop; a full pipe already guarantees a wake-up, so EAGAIN is fine.
    package func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe after poll() reported it readable.
    package func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }
}
