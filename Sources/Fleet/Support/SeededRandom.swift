import ByteEncoding
import Certificates

/// SplitMix64: a small, fast generator with a seed, so think times and backoff jitter of a run can
/// be reproduced.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A uniform Double in `range`.
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        guard range.upperBound > range.lowerBound else { return range.lowerBound }
        return Double.random(in: range, using: &self)
    }

    /// `count` random bytes as lowercase hex.
    mutating func hex(bytes count: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for _ in 0..<count { bytes.append(UInt8(truncatingIfNeeded: next())) }
        return Hex.encode(bytes)
    }
}
