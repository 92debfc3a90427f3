/// A block of IP addresses in CIDR notation: `10.0.0.0/8`, `2001:db8::/32`, or one address
/// (`127.0.0.1`, `::1`) meaning /32 or /128.
public struct AddressRange: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the block (host bits cleared).
    public let network: IPAddress
    /// Prefix length as written (0–32 for IPv4, 0–128 for IPv6).
    public let prefixLength: Int

    /// Loopback, IPv4 and IPv6: where a reverse proxy on the same host connects from.
    public static let loopback: [AddressRange] = [
        AddressRange(network: IPAddress(ipv4: 0x7F00_0000), prefixLength: 8),
        AddressRange(network: IPAddress(high: 0, low: 1), prefixLength: 128),
    ]

    /// Parses `address/length` or a bare address; nil when either part is malformed or the length
    /// is out of range. Host bits set below the prefix are cleared (`10.1.2.3/8` is `10.0.0.0/8`).
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let maximum = address.isIPv4 ? 32 : 128
        var length = maximum
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), parts[1].count <= 3,
                let value = Int(parts[1]), value <= maximum
            else { return nil }
            length = value
        }
        self.init(network: address, prefixLength: length)
    }

    init(network: IPAddress, prefixLength: Int) {
        let (high, low) = Self.mask(bits: Self.mappedBits(prefixLength, ipv4: network.isIPv4))
        self.network = IPAddress(high: network.high & high, low: network.low & low)
        self.prefixLength = prefixLength
    }

    /// Whether `address` lies in this block.
    public func contains(_ address: IPAddress) -> Bool {
        let (high, low) = Self.mask(bits: Self.mappedBits(prefixLength, ipv4: network.isIPv4))
        return address.high & high == network.high && address.low & low == network.low
    }

    public var description: String { "\(network)/\(prefixLength)" }

    /// An IPv4 prefix counts the 96 bits of the IPv4-mapped prefix too.
    private static func mappedBits(_ length: Int, ipv4: Bool) -> Int {
        ipv4 ? 96 + length : length
    }

    /// The top `bits` of 128 set.
    private static func mask(bits: Int) -> (UInt64, UInt64) {
        let high: UInt64 = bits >= 64 ? .max : (bits == 0 ? 0 : .max << (64 - bits))
        let low: UInt64 = bits <= 64 ? 0 : (bits >= 128 ? .max : .max << (128 - bits))
        return (high, low)
    }
}

extension IPAddress {
    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }
}

extension Sequence<AddressRange> {
    /// Whether any block contains `address`.
    func contains(_ address: IPAddress) -> Bool {
        contains { $0.contains(address) }
    }
}
