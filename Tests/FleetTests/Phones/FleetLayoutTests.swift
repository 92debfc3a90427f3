import PassServerTesting
import Testing

@testable import Fleet

@Suite("Fleet layout: passes per phone and phones per pass", .offCooperativePool)
struct FleetLayoutTests {
    @Test("every pass sits on exactly M phones and no phone holds a pass twice", arguments: [
        (10, 1, 1), (10, 2, 1), (10, 1, 2), (10, 2, 2), (9, 2, 3), (3, 2, 2),
    ])
    func coverage(phones: Int, passesPerPhone: Int, phonesPerPass: Int) throws {
        let layout = try FleetLayout(phones: phones, passesPerPhone: passesPerPhone, phonesPerPass: phonesPerPass)
        #expect(layout.tickets * phonesPerPass == phones * passesPerPhone)
        var holders = Array(repeating: [Int](), count: layout.tickets)
        for phone in 0..<phones {
            let passes = layout.slots(ofPhone: phone).map(layout.pass(inSlot:))
            #expect(Set(passes).count == passesPerPhone, "phone \(phone) holds \(passes)")
            for slot in layout.slots(ofPhone: phone) { #expect(layout.phone(ofSlot: slot) == phone) }
            for pass in passes { holders[pass].append(phone) }
        }
        #expect(holders.allSatisfy { Set($0).count == phonesPerPass })
    }

    @Test("impossible layouts are refused", arguments: [(0, 1, 1), (3, 1, 2), (1, 2, 2), (5, 0, 1), (1, 1, 2)])
    func refused(phones: Int, passesPerPhone: Int, phonesPerPass: Int) {
        #expect(throws: FleetError.self) { try FleetLayout(phones: phones, passesPerPhone: passesPerPhone, phonesPerPass: phonesPerPass) }
    }
}
