/// Percent-encoding of ids in request paths: every byte but RFC 3986's unreserved characters, so
/// an id can never add a path segment or a query.
enum PathEncoding {
    static func segment(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if isUnreserved(byte) { out.unicodeScalars.append(Unicode.Scalar(byte)) } else { out += escape(byte) }
        }
        return out
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    static func escape(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "%\(digits[Int(byte >> 4)])\(digits[Int(byte & 15)])"
    }
}
