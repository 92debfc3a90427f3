import COpenSSL

/// Comparisons of secrets that take the same time wherever the inputs differ.
package enum ConstantTime {
    /// True when both hold the same bytes; lengths are not secret (stored hashes have a fixed size).
    package static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { a in
            rhs.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }
}
