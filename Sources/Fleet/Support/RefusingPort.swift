// A local port that refuses every connection: a socket bound to 127.0.0.1 that never listens.
// Holding it keeps the port from being handed to anyone else, so a connect there fails with
// ECONNREFUSED for as long as the fleet runs: a real network failure for fault injection.

import Foundation

final class RefusingPort: Sendable {
    let port: UInt16
    private let fd: Int32

    init() throws(FleetError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FleetError(.invalidConfiguration, "socket failed: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            throw FleetError(.invalidConfiguration, "cannot bind a refusing port on 127.0.0.1")
        }
        self.fd = fd
        self.port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(fd) }
}
