#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 (4 bytes) or IPv6 (16 bytes) address.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in network order: 4 or 16 bytes.
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A textual address (`192.0.2.1`, `2001:db8::1`, `::ffff:10.0.0.1`), as `inet_pton` reads
    /// it; nil for anything else (host names, brackets, zone ids, the shorthands `inet_aton` takes).
    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    public var isIPv6: Bool { bytes.count == 16 }

    /// The usual text (`inet_ntop`).
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = isIPv6 ? AF_INET6 : AF_INET
        let written = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// How libcurl's CURLOPT_RESOLVE writes it: IPv6 in brackets.
    var resolveEntry: String { isIPv6 ? "[\(description)]" : description }
}

extension HTTPClient {
    /// Every address `host` resolves to for TCP (`getaddrinfo`, IPv4 and IPv6), without repeats,
    /// in the resolver's order. A literal address (IPv6 without brackets) is itself. Blocks: call it
    /// from a thread of your own.
    public static func resolve(_ host: String) throws(HTTPClientError) -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw HTTPClientError(.unresolvedHost, "cannot resolve \(String(host.prefix(200))): \(reason)")
        }
        defer { freeaddrinfo(list) }
        var found: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let socketAddress = current.pointee.ai_addr, let address = Self.address(socketAddress, family: current.pointee.ai_family),
                !found.contains(address)
            {
                found.append(address)
            }
            entry = current.pointee.ai_next
        }
        guard !found.isEmpty else { throw HTTPClientError(.unresolvedHost, "cannot resolve \(String(host.prefix(200))): no address") }
        return found
    }

    private static func address(_ socketAddress: UnsafeMutablePointer<sockaddr>, family: Int32) -> IPAddress? {
        switch family {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                var raw = v4.pointee.sin_addr
                return IPAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) })
            }
        case AF_INET6:
            return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var raw = v6.pointee.sin6_addr
                return IPAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) })
            }
        default:
            return nil
        }
    }
}
