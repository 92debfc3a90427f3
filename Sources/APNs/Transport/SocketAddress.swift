// Name resolution and non-blocking TCP connect for the I/O thread.

import Foundation

/// A resolved IPv4/IPv6 socket address.
struct SocketAddress {
    var storage = sockaddr_storage()
    var length: socklen_t = 0
    var family: Int32 = AF_INET

    /// Resolves `host` (getaddrinfo; blocking, called on the client's I/O thread), IPv4 first.
    static func resolve(host: String, port: UInt16) throws(APNSError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            throw APNSError(code: .connectionFailed, message: "cannot resolve \(host): \(reason)")
        }
        defer { freeaddrinfo(list) }
        var result: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr, entry.pointee.ai_family == AF_INET || entry.pointee.ai_family == AF_INET6 {
                var resolved = SocketAddress()
                resolved.family = entry.pointee.ai_family
                resolved.length = entry.pointee.ai_addrlen
                withUnsafeMutableBytes(of: &resolved.storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen)))
                }
                result.append(resolved)
            }
            cursor = entry.pointee.ai_next
        }
        return result.sorted { $0.family == AF_INET && $1.family != AF_INET }
    }

    /// Starts a non-blocking connect; the socket becomes writable when it completes.
    func startConnect() throws(APNSError) -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw APNSError(code: .connectionFailed, message: "socket() failed: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var copy = storage
        let result = withUnsafePointer(to: &copy) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(fd, $0, length) }
        }
        if result != 0 && errno != EINPROGRESS {
            let reason = String(cString: strerror(errno))
            Foundation.close(fd)
            throw APNSError(code: .connectionFailed, message: "connect failed: \(reason)")
        }
        return fd
    }

    /// True when `host` is a literal IPv4 or IPv6 address (no SNI, IP-address check instead of DNS name).
    static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
