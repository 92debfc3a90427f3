import Foundation
import HTTPServer
import PassBundle

extension AdminInput {
    /// The query parameters of `request`, read with the same rules as body fields (the router
    /// has already refused names the route does not take, and names given twice).
    static func query(_ request: Request) -> AdminInput {
        let parameters = request.query.mapValues(JSONValue.string)
        return AdminInput(object: parameters, allowed: Set(parameters.keys))
    }

    /// An integer parameter within `range` written in plain digits, or `defaultValue` when absent.
    mutating func integer(_ field: String, in range: ClosedRange<Int>, default defaultValue: Int) -> Int {
        let message = "must be \(range.lowerBound) to \(range.upperBound)"
        guard let number = decimal(field, maxDigits: String(range.upperBound).count, problem: message) else { return defaultValue }
        guard range.contains(Int(number)) else {
            problem(field, message)
            return defaultValue
        }
        return Int(number)
    }

    /// 1 to `maxDigits` ASCII digits (no sign, no spaces: what the document's patterns allow), or
    /// nil when absent or, after naming `problem`, when not such digits.
    mutating func decimal(_ field: String, maxDigits: Int, problem message: String) -> Int64? {
        guard let raw = value(field) else { return nil }
        guard case .string(let text) = raw, (1...maxDigits).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let number = Int64(text)
        else {
            problem(field, message)
            return nil
        }
        return number
    }

    /// An ISO 8601 date-time with a zone (as `date` reads it), or nil when absent. A `+` of the
    /// offset that arrived as a space (an unencoded `+` in a query is a space) is read as `+`.
    mutating func instant(_ field: String) -> Date? {
        guard case .string(let raw)? = value(field) else { return date(field).value }
        var text = raw
        if let space = text.lastIndex(of: " "), text.distance(from: space, to: text.endIndex) == 6 {
            text.replaceSubrange(space...space, with: "+")
        }
        guard let date = ISODate.parse(text) else { return date(field).value }
        return date
    }

    /// One of `choices`, or nil when absent.
    mutating func choice(_ field: String, _ choices: [String]) -> String? {
        guard let raw = value(field) else { return nil }
        guard case .string(let text) = raw, choices.contains(text) else {
            problem(field, "must be one of \(choices.joined(separator: ", "))")
            return nil
        }
        return text
    }
}
