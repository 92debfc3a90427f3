import Foundation
import Glibc
import PassServerTesting

/// Many raw connections from one loopback address, each left open mid-request: what a client
/// holding connections (or a slowloris attacker) looks like to the server.
final class HeldConnections {
    private(set) var descriptors: [Int32] = []

    /// Opens `count` connections from `source` to 127.0.0.1:`port`, sending `partial` on each.
    /// Connections the server refuses at once still count here until `open` is asked.
    init(count: Int, port: Int, source: String, partial: String = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ") {
        for _ in 0..<count {
            guard let fd = try? TestClient.connect(port: port, source: source, timeout: 5) else { continue }
            _ = partial.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            descriptors.append(fd)
        }
    }

    deinit { descriptors.forEach { close($0) } }

    /// How many connections the server has not closed.
    var open: Int {
        descriptors.filter { fd in
            var byte: UInt8 = 0
            let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        }.count
    }

    /// Waits (at most `seconds`) until the number of open connections stops changing, and returns it.
    func settledOpenCount(seconds: Double = 10) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        var last = open
        while Date() < deadline {
            usleep(200_000)
            let now = open
            if now == last { return now }
            last = now
        }
        return last
    }

    /// Closes every connection now.
    func closeAll() {
        descriptors.forEach { close($0) }
        descriptors = []
    }
}
