/// Which passes each phone holds: `phones` phones, each with `passesPerPhone` passes, each pass on
/// `phonesPerPass` phones, so there are `phones × passesPerPhone / phonesPerPass` tickets.
///
/// Phone `i` holds the passes of slots `i·K ..< (i+1)·K` (K passes per phone), slot `s` being pass
/// `s mod tickets`: a phone never holds one pass twice, and a shared pass sits on different phones.
public struct FleetLayout: Sendable, Equatable {
    public let phones: Int
    public let passesPerPhone: Int
    public let phonesPerPass: Int

    public init(phones: Int, passesPerPhone: Int = 1, phonesPerPass: Int = 1) throws(FleetError) {
        guard phones > 0, passesPerPhone > 0, phonesPerPass > 0 else {
            throw FleetError(.invalidConfiguration, "phones, passes per phone and phones per pass must be positive")
        }
        guard (phones * passesPerPhone) % phonesPerPass == 0 else {
            throw FleetError(.invalidConfiguration, "phones × passes per phone must be a multiple of phones per pass")
        }
        guard phonesPerPass <= phones, (phones * passesPerPhone) / phonesPerPass >= passesPerPhone else {
            throw FleetError(.invalidConfiguration, "too few phones for \(passesPerPhone) passes each on \(phonesPerPass) phones")
        }
        self.phones = phones
        self.passesPerPhone = passesPerPhone
        self.phonesPerPass = phonesPerPass
    }

    /// Tickets (passes) the event needs.
    public var tickets: Int { phones * passesPerPhone / phonesPerPass }

    /// Pass slots in all: one per (phone, pass it holds).
    public var slots: Int { phones * passesPerPhone }

    /// The slots of phone `phone`.
    public func slots(ofPhone phone: Int) -> Range<Int> { (phone * passesPerPhone)..<((phone + 1) * passesPerPhone) }

    /// The pass in slot `slot`.
    public func pass(inSlot slot: Int) -> Int { slot % tickets }

    /// The phone owning slot `slot`.
    public func phone(ofSlot slot: Int) -> Int { slot / passesPerPhone }
}
