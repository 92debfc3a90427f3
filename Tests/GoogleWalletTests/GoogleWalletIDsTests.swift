import GoogleWallet
import PassServerTesting
import Testing

@Suite("GoogleWalletIDs: class and object ids from events and serial numbers, and back", .offCooperativePool)
struct GoogleWalletIDsTests {
    @Test("ids hold only Google's characters and lead back to what they name")
    func roundTrip() {
        let serials = ["T-1", "a:b", "a_b", "a_3Ab", "x.y", "_:_", String(repeating: "z", count: 128)]
        var objectIDs: Set<String> = []
        for serial in serials {
            let id = GoogleWalletIDs.objectID(issuer: "3388000000022", serial: serial)
            #expect(id.hasPrefix("3388000000022.t."))
            #expect(id.unicodeScalars.allSatisfy { $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0) }, "\(id)")
            #expect(GoogleWalletIDs.serial(fromObjectID: id, issuer: "3388000000022") == serial)
            #expect(GoogleWalletIDs.event(fromClassID: id, issuer: "3388000000022") == nil)
            objectIDs.insert(id)
        }
        #expect(objectIDs.count == serials.count)
        let classID = GoogleWalletIDs.classID(issuer: "3388000000022", event: "ev_Ab-9")
        #expect(classID == "3388000000022.e.ev_5FAb-9")
        #expect(GoogleWalletIDs.event(fromClassID: classID, issuer: "3388000000022") == "ev_Ab-9")
    }

    @Test("another issuer's ids, broken escapes and foreign characters name nothing")
    func refusals() {
        #expect(GoogleWalletIDs.serial(fromObjectID: "1.t.T-1", issuer: "2") == nil)
        #expect(GoogleWalletIDs.serial(fromObjectID: "2.t.T_1", issuer: "2") == nil)
        #expect(GoogleWalletIDs.serial(fromObjectID: "2.t.T:1", issuer: "2") == nil)
        #expect(GoogleWalletIDs.serial(fromObjectID: "2.t.", issuer: "2") == nil)
        #expect(GoogleWalletIDs.serial(fromObjectID: "2.t.T_5", issuer: "2") == nil)
        #expect(GoogleWalletIDs.serial(fromObjectID: "2.t.T-1", issuer: "2") == "T-1")
    }
}
