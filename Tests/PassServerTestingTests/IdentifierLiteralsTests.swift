import PassIdentifiers
import PassServerTesting
import Testing

@Suite("Identifier literals and push token fixtures", .offCooperativePool)
struct IdentifierLiteralsTests {
    @Test("a fixture token is a valid token, one per label, in the labels' byte order")
    func fixtures() {
        let labels = ["t1", "t10", "t2", "tok-a", String(repeating: "x", count: 40)]
        let tokens = labels.map(PushToken.fixture)
        for token in tokens {
            #expect(PushToken(token.rawValue) == token, "valid as input: \(token)")
        }
        #expect(Set(tokens).count == labels.count)
        #expect(tokens.map(\.rawValue) == tokens.map(\.rawValue).sorted())
        #expect(PushToken.fixture("t1").rawValue == "7431" + String(repeating: "0", count: 60))
        #expect(PushToken.fixture(labels[4]).rawValue.count == 80, "a long label is not cut")
    }

    @Test("a literal is the identifier its text spells, checked as input is")
    func literals() {
        let serial: SerialNumber = "S-\(7)"
        let spelled = "S-7"
        #expect(serial == SerialNumber(spelled))
        let passType: PassTypeIdentifier = "pass.com.example.tickets"
        #expect(passType.rawValue == "pass.com.example.tickets")
        let device: DeviceLibraryIdentifier = "phone-1"
        #expect(device.rawValue == "phone-1")
        let hex = String(repeating: "ab", count: 32)
        #expect(PushToken.hex(hex.uppercased()).rawValue == hex)
    }
}
