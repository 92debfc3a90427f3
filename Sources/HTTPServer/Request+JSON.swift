public import Foundation

extension Request {
    /// Decodes the JSON body. Malformed or mistyped JSON becomes a 400 `invalid_json` error, so a
    /// handler can simply `try` this and never turn bad input into a 500.
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws(HTTPError) -> T {
        do {
            return try decoder.decode(type, from: Data(body))
        } catch let error as DecodingError {
            throw HTTPError.badRequest(Self.describe(error), code: "invalid_json")
        } catch {
            throw HTTPError.badRequest("The request body is not valid JSON.", code: "invalid_json")
        }
    }

    /// A short client-facing description: which field is wrong, never the offending value.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "the body" : "'" + keys.joined(separator: ".") + "'"
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "The request body is not valid JSON."
        case .dataCorrupted(let context):
            return "Invalid value at \(path(context))."
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "Missing field '\(key.stringValue)'" + (context.codingPath.isEmpty ? "." : " in \(parent).")
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "Wrong type or null at \(path(context))."
        @unknown default:
            return "The request body does not match the expected JSON."
        }
    }
}
