// Identifiers from Apple's PassKit web service, validated once at the edge. Inside the server only
// these types travel, never raw path segments.

/// A validated identifier: a non-empty string of allowed characters and bounded length.
public protocol ValidatedIdentifier: Hashable, Sendable, CustomStringConvertible {
    var rawValue: String { get }
    init?(_ rawValue: String)
}

extension ValidatedIdentifier {
    public var description: String { rawValue }
}

/// `pass.com.example.tickets`: reverse-DNS, starting with `pass.`.
public struct PassTypeIdentifier: ValidatedIdentifier {
    public let rawValue: String

    /// A value that was validated when it was written (a row read back from the server's own
    /// database); not checked again.
    package init(trusted rawValue: String) {
        self.rawValue = rawValue
    }

    public init?(_ rawValue: String) {
        let parts = rawValue.split(separator: ".", omittingEmptySubsequences: false)
        guard rawValue.hasPrefix("pass."), parts.count >= 2, parts.allSatisfy({ !$0.isEmpty }),
            IdentifierBytes.isValid(rawValue, maxLength: 255, allowed: { IdentifierBytes.isBase64URL($0) || $0 == 0x2E })
        else { return nil }
        self.rawValue = rawValue
    }
}

/// A pass's serial number: letters, digits and `-_.:`; at most 128 characters.
public struct SerialNumber: ValidatedIdentifier {
    public let rawValue: String

    /// A value that was validated when it was written (a row read back from the server's own
    /// database); not checked again.
    package init(trusted rawValue: String) {
        self.rawValue = rawValue
    }

    public init?(_ rawValue: String) {
        guard IdentifierBytes.isValid(rawValue, maxLength: 128, allowed: { IdentifierBytes.isAlphanumeric($0) || "-_.:".utf8.contains($0) }),
            rawValue != ".", rawValue != ".."
        else { return nil }
        self.rawValue = rawValue
    }
}

/// The phone's library id (Apple sends 32 hex-like characters); letters, digits, `-_`, at most 128.
public struct DeviceLibraryIdentifier: ValidatedIdentifier {
    public let rawValue: String

    /// A value that was validated when it was written (a row read back from the server's own
    /// database); not checked again.
    package init(trusted rawValue: String) {
        self.rawValue = rawValue
    }

    public init?(_ rawValue: String) {
        guard IdentifierBytes.isValid(rawValue, maxLength: 128, allowed: IdentifierBytes.isBase64URL) else {
            return nil
        }
        self.rawValue = rawValue
    }
}

/// An APNs device token: hex, 32 to 100 bytes (64 to 200 digits); stored lowercase.
public struct PushToken: ValidatedIdentifier {
    public let rawValue: String

    /// A value that was validated when it was written (a row read back from the server's own
    /// database); not checked again.
    package init(trusted rawValue: String) {
        self.rawValue = rawValue
    }

    public init?(_ rawValue: String) {
        guard rawValue.utf8.count.isMultiple(of: 2), rawValue.utf8.count >= 64,
            IdentifierBytes.isValid(rawValue, maxLength: 200, allowed: IdentifierBytes.isHexDigit)
        else { return nil }
        self.rawValue = rawValue.lowercased()
    }
}

/// The `ApplePass` token from pass.json: printable ASCII, 16 to 256 characters.
public struct AuthenticationToken: ValidatedIdentifier {
    public let rawValue: String

    /// A value made by the server itself in a form that is always valid; not checked again.
    package init(trusted rawValue: String) {
        self.rawValue = rawValue
    }

    public init?(_ rawValue: String) {
        guard rawValue.utf8.count >= 16, IdentifierBytes.isValid(rawValue, maxLength: 256, allowed: IdentifierBytes.isVisibleASCII) else {
            return nil
        }
        self.rawValue = rawValue
    }

    /// Reads `Authorization: ApplePass <token>`: the literal word, one space, the token.
    public init?(authorizationHeader header: String?) {
        guard let (scheme, token) = Self.parse(authorizationHeader: header), scheme == .applePass else { return nil }
        self = token
    }

    /// Reads `Authorization: <scheme> <token>` for any of the web-service schemes: the literal
    /// word, one space, the token. nil for another word, a missing space or an invalid token.
    public static func parse(authorizationHeader header: String?) -> (DeviceAuthorizationScheme, AuthenticationToken)? {
        guard let header else { return nil }
        for scheme in DeviceAuthorizationScheme.allCases where header.hasPrefix(scheme.prefix) {
            guard let token = AuthenticationToken(String(header.dropFirst(scheme.prefix.utf8.count))) else { return nil }
            return (scheme, token)
        }
        return nil
    }
}

/// The word before the pass's token in a device's `Authorization` header: Apple Wallet sends
/// `ApplePass`; the Android app WalletPasses sends `AndroidPass` over the same protocol, and is
/// pushed through its own relay rather than APNs.
public enum DeviceAuthorizationScheme: String, Sendable, CaseIterable {
    case applePass = "ApplePass"
    case androidPass = "AndroidPass"

    /// The word and the one space after it.
    var prefix: String { rawValue + " " }
}

/// A push token of a wallet app pushed through a relay (WalletPasses's `pushToken`, a Firebase
/// registration token or a hex string): 16 to 512 letters, digits and `-_:`, kept as sent.
public struct RelayPushToken: ValidatedIdentifier {
    public let rawValue: String

    public init?(_ rawValue: String) {
        guard rawValue.utf8.count >= 16,
            IdentifierBytes.isValid(rawValue, maxLength: 512, allowed: { IdentifierBytes.isBase64URL($0) || $0 == 0x3A })
        else { return nil }
        self.rawValue = rawValue
    }
}
