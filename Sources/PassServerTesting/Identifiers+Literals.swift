public import PassIdentifiers

// Tests write identifiers as literals (`"S1"`, `"P\(index)"`, `"pass.com.example.tickets"`). A
// literal that is not a valid identifier stops the test at once: test data goes through the same
// rules as input. Push tokens have no literals: `PushToken.fixture("phone-1")` names one. Only test
// targets and test tools link this module; the server never writes identifiers this way.
// With these conformances `SerialNumber("x")` with a literal argument is the literal too (never nil):
// to check that some text is refused, pass it as a `String` variable.

extension PassTypeIdentifier: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self = validLiteral(value, Self.init)
    }
}

extension SerialNumber: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self = validLiteral(value, Self.init)
    }
}

extension DeviceLibraryIdentifier: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self = validLiteral(value, Self.init)
    }
}

extension PushToken {
    /// `text` as a token; stops the test if it is not one.
    public static func hex(_ text: String) -> PushToken {
        validLiteral(text, PushToken.init)
    }

    /// A valid token named by a readable label: the label's UTF-8 bytes in hex, padded with zeros
    /// to 64 digits. Distinct labels give distinct tokens, in the labels' byte order.
    public static func fixture(_ label: String) -> PushToken {
        var hex = label.utf8.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
        if hex.count < 64 { hex += String(repeating: "0", count: 64 - hex.count) }
        return validLiteral(hex, PushToken.init)
    }
}

private func validLiteral<Identifier>(_ value: String, _ make: (String) -> Identifier?) -> Identifier {
    guard let identifier = make(value) else { preconditionFailure("not a valid \(Identifier.self): \(value)") }
    return identifier
}
