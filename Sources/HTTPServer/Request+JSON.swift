public import Foundation

extension Request {
    /// Decodes the JSON body: the one reader of JSON request bodies, so a handler can simply `try`
    /// this and never turn bad input into a 500. A `Content-Type` other than `application/json`
    /// is a 400 `unsupported_content_type`; an empty body is a 400 `missing_body` unless `ifEmpty`
    /// stands in for it; malformed or mistyped JSON is a 400 `malformed_json` naming the field,
    /// never the value. (JSONDecoder rather than JSONSerialization: the latter drops a byte order
    /// mark that starts a string value, so what is stored would differ from what was checked.)
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder(), ifEmpty: [UInt8]? = nil) throws(HTTPError) -> T {
        if let contentType = headers["Content-Type"]?.lowercased(), !contentType.hasPrefix("application/json") {
            throw HTTPError.badRequest("Content-Type must be application/json.", code: "unsupported_content_type")
        }
        var body = self.body
        if body.isEmpty {
            guard let ifEmpty else { throw HTTPError.badRequest("A JSON body is required.", code: "missing_body") }
            body = ifEmpty
        }
        do {
            return try decoder.decode(type, from: Data(body))
        } catch let error as DecodingError {
            throw HTTPError.badRequest(Self.describe(error), code: "malformed_json")
        } catch {
            throw HTTPError.badRequest("The request body is not valid JSON.", code: "malformed_json")
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
