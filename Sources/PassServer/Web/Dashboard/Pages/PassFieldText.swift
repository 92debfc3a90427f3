import Foundation
import PassBundle

/// A rendered pass field's label and value as Wallet would show them: labels through the
/// template's strings, dates in the event's time zone, numbers without a needless fraction.
/// Shared by the pages that draw a pass (the ticket page, the design page's preview).
struct PassFieldText {
    /// The template's `pass.strings` of the language shown.
    var strings: [String: String]
    var timeZone: String
    /// Dates as Wallet writes them (`Mar 1, 2027 at 7:00 PM` for a medium date and a short time,
    /// in this language), instead of the dashboard's `2027-03-01 19:00 (Asia/Tokyo)`.
    var walletDates: String?

    /// `raw` through the strings (a key becomes its text), empty for none.
    func text(_ raw: String?) -> String { raw.map { strings[$0] ?? $0 } ?? "" }

    func label(_ field: PassDefinition.Field) -> String { text(field.label) }

    func value(_ field: PassDefinition.Field) -> String {
        switch field.value {
        case .number(let number): return number == number.rounded() ? String(Int64(number)) : String(number)
        case .string(let raw):
            if field.dateStyle != nil || field.timeStyle != nil, let date = ISODate.parse(raw) {
                guard let language = walletDates else { return DashboardLayout.dateText(date, timeZone: timeZone) }
                return Self.walletDate(date, dateStyle: field.dateStyle, timeStyle: field.timeStyle, timeZone: timeZone, language: language)
            }
            return text(raw).replacingOccurrences(of: "%@", with: "")
        }
    }

    /// `date` with Wallet's `PKDateStyle…` names for the date and the time.
    static func walletDate(_ date: Date, dateStyle: String?, timeStyle: String?, timeZone: String, language: String) -> String {
        func style(_ name: String?) -> DateFormatter.Style {
            switch name {
            case "PKDateStyleShort": .short
            case "PKDateStyleMedium": .medium
            case "PKDateStyleLong": .long
            case "PKDateStyleFull": .full
            default: .none
            }
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language)
        formatter.timeZone = TimeZone(identifier: timeZone) ?? .gmt
        formatter.dateStyle = style(dateStyle)
        formatter.timeStyle = style(timeStyle)
        return formatter.string(from: date)
    }
}
