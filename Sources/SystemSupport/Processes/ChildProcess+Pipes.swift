// Reading a child's output pipes (`Output.pipe`).

import Glibc

extension ChildProcess {
    /// The next bytes the child writes to standard output: blocks until there are some, and
    /// returns at most `maxLength`; empty at end of file (the child and its descendants closed it).
    public func readOutput(maxLength: Int = 65_536) throws -> [UInt8] {
        try Self.read(try pipe(outputPipe, "standard output"), maxLength: maxLength)
    }

    /// The next bytes the child writes to standard error, as `readOutput` does.
    public func readError(maxLength: Int = 65_536) throws -> [UInt8] {
        try Self.read(try pipe(errorPipe, "standard error"), maxLength: maxLength)
    }

    /// Everything the child writes to its piped streams until it closes them. Both pipes are
    /// drained together, so a child that fills one while we wait on the other cannot stall;
    /// a stream that is not a pipe reads as empty.
    public func readToEnd() throws -> (output: [UInt8], error: [UInt8]) {
        var output: [UInt8] = []
        var error: [UInt8] = []
        var open = [outputPipe, errorPipe].compactMap { $0 }
        while !open.isEmpty {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 else {
                if errno == EINTR { continue }
                throw ChildProcessError(operation: "poll on the pipes of \(pid)", code: errno)
            }
            for entry in polled where entry.revents != 0 {
                let bytes = try Self.read(entry.fd, maxLength: 65_536)
                if bytes.isEmpty {
                    open.removeAll { $0 == entry.fd }
                } else if entry.fd == outputPipe {
                    output += bytes
                } else {
                    error += bytes
                }
            }
        }
        return (output, error)
    }

    private func pipe(_ fd: Int32?, _ name: String) throws -> Int32 {
        guard let fd else { throw ChildProcessError(operation: "the \(name) of \(pid) is not a pipe", code: EBADF) }
        return fd
    }

    /// One `read`, retried on EINTR.
    private static func read(_ fd: Int32, maxLength: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxLength)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, maxLength) }
            if count >= 0 { return Array(buffer.prefix(count)) }
            guard errno == EINTR else { throw ChildProcessError(operation: "read from a pipe", code: errno) }
        }
    }
}
