/// Unpredictable bytes for tokens, serial numbers and secrets.
package enum SecureRandom {
    /// `count` bytes from the system's cryptographically secure generator (getrandom on Linux),
    /// which cannot fail once the kernel's pool is initialised.
    package static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in generator.next() }
    }
}
