import Glibc

/// An IPv4 or IPv6 address. IPv4 addresses are held in their IPv4-mapped IPv6 form
/// (`::ffff:a.b.c.d`), so a peer seen on an IPv6 socket as `::ffff:203.0.113.7` and the same peer
/// named `203.0.113.7` in `X-Forwarded-For` are one client.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The 128 bits, most significant first.
    let high: UInt64
    let low: UInt64

    /// Parses dotted-quad IPv4 or textual IPv6 (no zone, no port); nil for anything else.
    public init?(_ text: some StringProtocol) {
        let string = String(text)
        guard !string.isEmpty, string.utf8.count <= 45 else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, string, &v4) == 1 {
            self.init(ipv4: UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, string, &v6) == 1 else { return nil }
        self.init(ipv6: v6)
    }

    init(ipv4: UInt32) {
        high = 0
        low = 0xFFFF_0000_0000 | UInt64(ipv4)
    }

    init(ipv6: in6_addr) {
        var raw = ipv6
        let bytes = withUnsafeBytes(of: &raw) { Array($0) }
        high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The address of a socket peer; nil for families other than IPv4 and IPv6.
    init?(socketAddress address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let raw = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            self.init(ipv4: UInt32(bigEndian: raw))
        case AF_INET6:
            let raw = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            self.init(ipv6: raw)
        default:
            return nil
        }
    }

    /// Whether this is an IPv4 address (held IPv4-mapped).
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// Dotted quad for IPv4, the canonical RFC 5952 text for IPv6.
    public var description: String {
        if isIPv4 {
            let value = UInt32(truncatingIfNeeded: low)
            return "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
        }
        var raw = in6_addr()
        withUnsafeMutableBytes(of: &raw) { bytes in
            for index in 0..<8 {
                bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
                bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
            }
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil else { return "unknown" }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
