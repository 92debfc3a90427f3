import Foundation
import PassBundle

/// A rendered pass field's label and value as Wallet would show them: labels through the
/// template's strings, dates in the event's time zone, numbers without a needless fraction.
/// Shared by the pages that draw a pass (the ticket page, the design page's preview).
struct PassFieldText {
    /// The template's `pass.strings` of the language shown.
    var strings: [String: String]
    var timeZone: String

    /// `raw` through the strings (a key becomes its text), empty for none.
    func text(_ raw: String?) -> String { raw.map { strings[$0] ?? $0 } ?? "" }

    func label(_ field: PassDefinition.Field) -> String { text(field.label) }

    func value(_ field: PassDefinition.Field) -> String {
        switch field.value {
        case .number(let number): return number == number.rounded() ? String(Int64(number)) : String(number)
        case .string(let raw):
            if field.dateStyle != nil, let date = ISODate.parse(raw) { return DashboardLayout.dateText(date, timeZone: timeZone) }
            return text(raw).replacingOccurrences(of: "%@", with: "")
        }
    }
}
