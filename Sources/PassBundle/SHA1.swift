import COpenSSL

/// SHA-1 through OpenSSL's EVP one-shot (the low-level SHA1 functions are deprecated in 3.0).
package enum SHA1 {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Lowercase hex SHA-1, as manifest.json wants it.
    package static func hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha1(), nil) }
        guard ok == 1 else { return "" }
        var out = [UInt8]()
        out.reserveCapacity(40)
        for byte in digest.prefix(Int(length)) {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
