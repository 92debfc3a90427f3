/// Unpredictable bytes for tokens, serial numbers and secrets.
package enum SecureRandom {
    /// `count` bytes from the system's cryptographically secure generator (getrandom on Linux),
    /// which cannot fail once the kernel's pool is initialised.
    package static func bytes(_ count: Int) -> [UInt8] {
        // Eight bytes per draw (each draw is a getrandom call): a bulk import makes a serial
        // number for every ticket.
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }
}
