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
        return (0..<2).map { _ in
            let digits = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}
