import Foundation

/// The fields of one JSON object, read leniently where Google's documents vary (times in
/// milliseconds come as numbers or as strings of digits).
struct JSONFields {
    private let object: [String: Any]

    init?(_ bytes: [UInt8]) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else { return nil }
        self.object = object
    }

    init?(_ text: String) { self.init(Array(text.utf8)) }

    private init(object: [String: Any]) { self.object = object }

    func string(_ name: String) -> String? { object[name] as? String }

    func object(_ name: String) -> JSONFields? { (object[name] as? [String: Any]).map(JSONFields.init(object:)) }

    func array(_ name: String) -> [JSONFields]? {
        (object[name] as? [Any]).map { $0.compactMap { ($0 as? [String: Any]).map(JSONFields.init(object:)) } }
    }

    func strings(_ name: String) -> [String]? {
        guard let values = object[name] as? [Any] else { return nil }
        let strings = values.compactMap { $0 as? String }
        return strings.count == values.count ? strings : nil
    }

    /// A time given in milliseconds since 1970.
    func millis(_ name: String) -> Date? {
        let millis: Int64?
        switch object[name] {
        case let text as String: millis = text.allSatisfy(\.isASCII) ? Int64(text) : nil
        case let number as Int: millis = Int64(number)
        default: millis = nil
        }
        return millis.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) }
    }
}
