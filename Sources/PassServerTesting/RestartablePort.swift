import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Ports for a server that a test stops and starts again on the same port.
///
/// A port the system picked (binding port 0) comes from its ephemeral range, which it also hands
/// out to every outgoing connection: while the server is stopped, any socket of the test run (a
/// database connection, another test's client) may take that port and keep it, and the restart
/// finds it in use. A port below that range is never handed out, so it stays free for the restart.
public enum RestartablePort {
    /// A loopback port below the system's ephemeral range that nothing is bound to right now.
    public static func free() throws -> Int {
        let lowestEphemeral = ephemeralRangeStart()
        let candidates = 10_000..<max(10_001, lowestEphemeral)
        for _ in 0..<200 {
            let port = Int.random(in: candidates)
            if isFree(port) { return port }
        }
        throw Failure(description: "no free port in \(candidates)")
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The first port of `/proc/sys/net/ipv4/ip_local_port_range` (Linux's default 32768).
    static func ephemeralRangeStart() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
    }

    /// Whether 127.0.0.1:`port` can be bound now.
    static func isFree(_ port: Int) -> Bool {
        bindLoopback(port: port) != nil
    }

    /// Binds a socket to 127.0.0.1:`port` (0: a port the system picks) and closes it again; the
    /// port it was bound to, or nil when it could not be bound.
    static func bindLoopback(port: Int) -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
