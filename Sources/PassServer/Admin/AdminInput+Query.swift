import Foundation
import HTTPServer

extension AdminInput {
    /// The query parameters of `request`, read with the same rules as body fields (the router
    /// has already refused names the route does not take). An empty value counts as absent.
    static func query(_ request: Request) -> AdminInput {
        let present = request.query.filter { !$0.value.isEmpty }
        return AdminInput(object: present, allowed: Set(present.keys))
    }

    /// An integer parameter within `range`, or `defaultValue` when absent.
    mutating func integer(_ field: String, in range: ClosedRange<Int>, default defaultValue: Int) -> Int {
        guard let raw = value(field) as? String else { return defaultValue }
        guard let number = Int(raw), range.contains(number) else {
            problem(field, "must be \(range.lowerBound) to \(range.upperBound)")
            return defaultValue
        }
        return number
    }

    /// An ISO 8601 date-time with a zone, or nil when absent. A `+` of the offset that arrived as
    /// a space (an unencoded `+` in a query means a space) is read as the `+` it was.
    mutating func instant(_ field: String) -> Date? {
        guard let raw = value(field) as? String else { return nil }
        var text = raw
        if let space = text.lastIndex(of: " "), text.distance(from: space, to: text.endIndex) <= 6 {
            text.replaceSubrange(space...space, with: "+")
        }
        guard let date = ISODate.parse(text) else {
            problem(field, "must be an ISO 8601 date-time with a time zone, e.g. 2027-03-01T19:00:00%2B09:00 (+ encoded) or 2027-03-01T10:00:00Z")
            return nil
        }
        return date
    }

    /// One of `choices`, or nil when absent.
    mutating func choice(_ field: String, _ choices: [String]) -> String? {
        guard let raw = value(field) as? String else { return nil }
        guard choices.contains(raw) else {
            problem(field, "must be one of \(choices.joined(separator: ", "))")
            return nil
        }
        return raw
    }
}
