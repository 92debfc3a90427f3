import Foundation
import Glibc
import Synchronization

/// Opens the listening socket ourselves (instead of letting libmicrohttpd do it) so that a bind
/// failure reports its errno, e.g. "address in use", rather than a bare NULL daemon.
enum ListenSocket {
    /// A bound, listening, non-blocking socket and the port it really got.
    static func open(host: String, port: Int, backlog: Int) throws(HTTPServerError) -> (fd: Int32, port: Int) {
        let numericHost = host == "localhost" ? "127.0.0.1" : host
        var ipv4 = sockaddr_in()
        var ipv6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, numericHost, &ipv4.sin_addr) == 1 {
            family = AF_INET
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = UInt16(port).bigEndian
        } else if inet_pton(AF_INET6, numericHost, &ipv6.sin6_addr) == 1 {
            family = AF_INET6
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = UInt16(port).bigEndian
        } else {
            throw HTTPServerError(code: .invalidHost, message: "host '\(host)' is not a numeric IPv4/IPv6 address or localhost")
        }

        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw failure(.bindFailed, "socket() failed") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if family == AF_INET6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }

        let bound: Int32 = family == AF_INET
            ? withUnsafePointer(to: &ipv4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            : withUnsafePointer(to: &ipv6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        guard bound == 0 else {
            let error = failure(errno == EADDRINUSE ? .addressInUse : .bindFailed, "cannot bind \(host):\(port)")
            close(fd)
            throw error
        }
        guard listen(fd, Int32(backlog)) == 0 else {
            let error = failure(.bindFailed, "listen() failed on \(host):\(port)")
            close(fd)
            throw error
        }
        return (fd, boundPort(of: fd) ?? port)
    }

    /// The local port of a bound socket (the real one when 0 was asked for).
    static func boundPort(of fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        default:
            return nil
        }
    }

    /// Captures errno now, before any other call can overwrite it.
    private static func failure(_ code: HTTPServerError.Code, _ message: String) -> HTTPServerError {
        let number = errno
        let reason = String(cString: strerror(number))
        let underlying = POSIXErrorCode(rawValue: number).map { POSIXError($0) }
        return HTTPServerError(code: code, message: "\(message): \(reason)", underlying: underlying)
    }
}

/// A listening socket opened before its server starts, so that a start-up can report an address
/// in use together with its other problems, and the server then serves on that very socket
/// (`HTTPServer(…, listening:)`). Closed when released unless a server has taken it.
public final class ListeningSocket: Sendable {
    /// The bound port (the real one when 0 was asked for).
    public let port: Int
    private let fd: Mutex<Int32?>

    /// Binds and listens on `host:port` now.
    public init(host: String, port: Int, backlog: Int = ServerConfiguration().listenBacklog) throws(HTTPServerError) {
        let socket = try ListenSocket.open(host: host, port: port, backlog: backlog)
        self.port = socket.port
        fd = Mutex(socket.fd)
    }

    /// The socket, for the one server that serves on it; nil once taken.
    func take() -> (fd: Int32, port: Int)? {
        fd.withLock { fd in
            defer { fd = nil }
            return fd.map { ($0, port) }
        }
    }

    deinit {
        if let fd = fd.withLock({ $0 }) { close(fd) }
    }
}
