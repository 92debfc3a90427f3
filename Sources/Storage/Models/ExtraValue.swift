import ByteEncoding
import Foundation

/// The value of one of a ticket's extra fields (declared by its template): text or a whole number.
public enum ExtraValue: Sendable, Equatable, Hashable, Codable {
    case string(String)
    case integer(Int64)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            self = .integer(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .integer(let number): try container.encode(number)
        }
    }

    /// The value as text (a number in decimal).
    public var text: String {
        switch self {
        case .string(let text): text
        case .integer(let number): String(number)
        }
    }
}

/// How `passes.extra` is stored: a JSON object with sorted keys, NULL when there is none.
enum ExtraColumn {
    /// Written by hand (an import writes one per ticket, and JSONEncoder costs more than the rest
    /// of the row); `decode` reads it with JSONDecoder.
    static func encode(_ extra: [String: ExtraValue]) -> String? {
        guard !extra.isEmpty else { return nil }
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, key) in extra.keys.sorted().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.append(key, to: &out)
            out.append(UInt8(ascii: ":"))
            switch extra[key] {
            case .string(let text)?: JSONString.append(text, to: &out)
            case .integer(let number)?: out += String(number).utf8
            case nil: out += "null".utf8
            }
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String?) throws -> [String: ExtraValue] {
        guard let text, !text.isEmpty else { return [:] }
        do {
            return try JSONDecoder().decode([String: ExtraValue].self, from: Data(text.utf8))
        } catch {
            throw StorageError(.backend, "passes.extra is not a JSON object of strings and integers", underlying: error)
        }
    }
}
