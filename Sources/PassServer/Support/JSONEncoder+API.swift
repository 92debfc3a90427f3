import Foundation

extension JSONEncoder {
    /// The encoder of every JSON response: stable key order, URLs without escaped slashes.
    static var api: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
