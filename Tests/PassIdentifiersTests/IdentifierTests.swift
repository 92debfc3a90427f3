import PassIdentifiers
import Testing

@Suite("Identifiers: validated once at the edge")
struct IdentifierTests {
    @Test("pass type identifiers")
    func passTypes() {
        for valid in ["pass.com.example.tickets", "pass.x", "pass.com.example-one.tickets_2"] {
            #expect(PassTypeIdentifier(valid)?.rawValue == valid)
        }
        for invalid in ["", "pass", "pass.", "com.example.tickets", "pass..x", "pass.x.", "pass.x/y", "pass.x y", "pass.é",
                        "pass." + String(repeating: "a", count: 251)] {
            #expect(PassTypeIdentifier(invalid) == nil, "\(invalid)")
        }
    }

    @Test("serial numbers")
    func serials() {
        for valid in ["ABC-123", "a_b.c:d", "x", String(repeating: "9", count: 128), "8cZq2-Xn_T0vWb4aKd1e"] {
            #expect(SerialNumber(valid)?.rawValue == valid)
        }
        for invalid in ["", ".", "..", "a/b", "a b", "a%20b", "<script>", "ü", String(repeating: "9", count: 129), "a\u{0}b"] {
            #expect(SerialNumber(invalid) == nil, "\(invalid)")
        }
    }

    @Test("device library identifiers")
    func devices() {
        for valid in ["0123456789abcdef0123456789abcdef", "A-b_C", String(repeating: "d", count: 128)] {
            #expect(DeviceLibraryIdentifier(valid)?.rawValue == valid)
        }
        for invalid in ["", "dev.ice", "a b", "a/b", String(repeating: "d", count: 129), "ü"] {
            #expect(DeviceLibraryIdentifier(invalid) == nil, "\(invalid)")
        }
    }

    @Test("push tokens: 64 to 200 hex digits, stored lowercase")
    func pushTokens() {
        let token = String(repeating: "aB3f", count: 16)
        #expect(PushToken(token)?.rawValue == token.lowercased())
        #expect(PushToken(String(repeating: "0", count: 200))?.rawValue == String(repeating: "0", count: 200))
        for invalid in ["", "abcdef", String(repeating: "a", count: 62), String(repeating: "a", count: 65),
                        String(repeating: "a", count: 202), String(repeating: "g", count: 64), String(repeating: "a", count: 63) + " "] {
            #expect(PushToken(invalid) == nil, "\(invalid.count) characters")
        }
    }

    @Test("authentication tokens and the ApplePass header")
    func authenticationTokens() {
        let token = "abcdefghijklmnop"
        #expect(AuthenticationToken(token)?.rawValue == token)
        #expect(AuthenticationToken("short") == nil)
        #expect(AuthenticationToken(String(repeating: "t", count: 257)) == nil)
        #expect(AuthenticationToken("abcdefgh ijklmnop") == nil)
        #expect(AuthenticationToken(authorizationHeader: "ApplePass \(token)")?.rawValue == token)
        for header in [nil, "", "ApplePass", "ApplePass ", "applepass \(token)", "Bearer \(token)", "ApplePass  \(token)", " ApplePass \(token)"] {
            #expect(AuthenticationToken(authorizationHeader: header) == nil, "\(header ?? "nil")")
        }
    }

    @Test("the AndroidPass header (WalletPasses) and relay push tokens")
    func androidPass() {
        let token = "abcdefghijklmnop"
        #expect(AuthenticationToken.parse(authorizationHeader: "AndroidPass \(token)").map { ($0.0, $0.1.rawValue) } ?? (.applePass, "") == (.androidPass, token))
        #expect(AuthenticationToken.parse(authorizationHeader: "ApplePass \(token)")?.0 == .applePass)
        // Only ApplePass reads as an Apple Wallet token.
        #expect(AuthenticationToken(authorizationHeader: "AndroidPass \(token)") == nil)
        for header in [nil, "AndroidPass", "AndroidPass ", "androidpass \(token)", "AndroidPass  \(token)", "WalletUnionPass \(token)", "AndroidPassword \(token)"] {
            #expect(AuthenticationToken.parse(authorizationHeader: header) == nil, "\(header ?? "nil")")
        }
        #expect(RelayPushToken("cA47ZTE-WJlHmId0Ib6uv:APA91b_x")?.rawValue == "cA47ZTE-WJlHmId0Ib6uv:APA91b_x")
        for text in ["short-token", String(repeating: "a", count: 513), "with space in the token", "quote\"in-the-token", "dots.are.not.allowed.here"] {
            #expect(RelayPushToken(text) == nil, "\(text)")
        }
    }

    @Test("a value read back from the server's own database is kept as written: not checked, not lowercased")
    func trusted() {
        let upper = "AB" + String(repeating: "0", count: 62)
        #expect(PushToken(upper)?.rawValue == upper.lowercased(), "checked input is stored lowercase")
        #expect(PushToken(trusted: upper).rawValue == upper)
        #expect(SerialNumber(trusted: "a b").rawValue == "a b")
        #expect(PassTypeIdentifier(trusted: "pt").rawValue == "pt")
        #expect(DeviceLibraryIdentifier(trusted: "d.1").rawValue == "d.1")
    }
}
