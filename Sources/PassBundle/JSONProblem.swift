import Foundation

/// Parses JSON from outside and, when it is broken, says where and how.
///
/// `JSONDecoder` reports only that the data "was not valid JSON"; `JSONSerialization` names the
/// problem and its byte offset, which is turned into a line and column here.
enum JSONProblem {
    /// A parsed document, or what is wrong with the text.
    enum Parsed {
        case value(JSONValue)
        /// A problem such as `is not valid JSON: Invalid value around character 15 (line 2, column 8)`.
        case problem(String)
    }

    static func parse(_ bytes: [UInt8]) -> Parsed {
        do {
            return .value(try JSONDecoder().decode(JSONValue.self, from: Data(bytes)))
        } catch {
            return .problem("is not valid JSON: " + detail(bytes))
        }
    }

    /// What JSONSerialization finds wrong, with the line and column of the byte it names.
    private static func detail(_ bytes: [UInt8]) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            let message = ((error as NSError).userInfo["NSDebugDescription"] as? String) ?? "the text cannot be parsed"
            guard let range = message.range(of: "character "),
                  let offset = Int(message[range.upperBound...].prefix { $0.isNumber }), offset <= bytes.count else {
                return message
            }
            let before = bytes[..<offset]
            let line = before.count { $0 == UInt8(ascii: "\n") } + 1
            let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            let sentence = message.hasSuffix(".") ? String(message.dropLast()) : message
            return "\(sentence) (line \(line), column \(column))"
        }
        // Parsed here but not by JSONDecoder: a number too large for a Double, for example.
        return "a value cannot be read"
    }
}
