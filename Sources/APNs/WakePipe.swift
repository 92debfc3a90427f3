// A self-pipe that wakes the I/O thread's poll() when callers enqueue work.

import Foundation

final class WakePipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws(APNSError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw APNSError(code: .invalidConfiguration, message: "pipe failed: \(String(cString: strerror(errno)))")
        }
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
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe after poll() reported it readable.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }
}
