/// Request ids: an incoming `X-Request-ID` is reused when it is safe to log and echo, otherwise a
/// random one is made, so a proxy's id carries through while header injection cannot.
enum RequestID {
    static let headerName = "X-Request-ID"
    static let maxLength = 64

    /// The incoming id when it is 1–64 characters of `[A-Za-z0-9-_.]`, else a fresh random id.
    static func resolve(incoming: String?) -> String {
        if let incoming, isWellFormed(incoming) { return incoming }
        return generate()
    }

    static func isWellFormed(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case 48...57, 65...90, 97...122, 45, 95, 46: true
            default: false
            }
        }
    }

    /// 128 random bits as 32 lowercase hex digits.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let words: (UInt64, UInt64) = (generator.next(), generator.next())
        // Written straight into the string's storage: every request without an id makes one.
        return String(unsafeUninitializedCapacity: 32) { buffer in
            for (offset, word) in [(0, words.0), (16, words.1)] {
                for nibble in 0..<16 {
                    let value = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * nibble)) & 0x0F
                    buffer[offset + nibble] = value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
                }
            }
            return 32
        }
    }
}
