import Foundation

/// The fields an HTML form sent: `application/x-www-form-urlencoded` or `multipart/form-data` (a
/// form with a file input). Values are UTF-8 text. A file's content is its field's `bytes`, and
/// its `value` too when it is UTF-8 text (a CSV file); a binary file (an image) has an empty
/// `value`. Any other part that is not UTF-8 makes the form unreadable.
public struct FormFields: Sendable {
    public struct Field: Sendable {
        public var name: String
        public var value: String
        /// The file name a browser sent with a file input's part (nil for other fields).
        public var fileName: String?
        /// A file's content as sent (empty for other fields).
        public var bytes: [UInt8]

        public init(name: String, value: String, fileName: String? = nil, bytes: [UInt8] = []) {
            self.name = name
            self.value = value
            self.fileName = fileName
            self.bytes = bytes
        }

        /// Whether this is a file input's part whose content is not UTF-8 text.
        public var isBinaryFile: Bool { fileName != nil && !bytes.isEmpty && value.isEmpty }
    }

    public var fields: [Field]

    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// The first value of `name`, if present.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// The first value of `name` unless it is empty (a file input left empty sends an empty part).
    public func nonEmpty(_ name: String) -> String? {
        fields.first { $0.name == name && !$0.value.isEmpty }?.value
    }

    /// The first file sent as `name` with some content (a file input left empty sends an empty part).
    public func file(_ name: String) -> Field? {
        fields.first { $0.name == name && $0.fileName != nil && !$0.bytes.isEmpty }
    }
}

extension Request {
    /// The body as form fields. 400 when the content type is neither form encoding, the body is
    /// malformed, or a value is not UTF-8.
    public func formFields() throws(HTTPError) -> FormFields {
        let contentType = headers["Content-Type"] ?? ""
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        switch parts.first?.lowercased() {
        case "application/x-www-form-urlencoded":
            guard let text = bodyText, let items = PercentDecoding.queryItems(text) else {
                throw HTTPError.badRequest("The form body is malformed.", code: "malformed_form")
            }
            return FormFields(items.map { FormFields.Field(name: $0.name, value: $0.value) })
        case "multipart/form-data":
            let boundary = parts.dropFirst().first { $0.lowercased().hasPrefix("boundary=") }
                .map { String($0.dropFirst("boundary=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            guard let boundary, (1...70).contains(boundary.utf8.count) else {
                throw HTTPError.badRequest("A multipart form needs a boundary.", code: "malformed_form")
            }
            return try Multipart.fields(body, boundary: boundary)
        default:
            throw HTTPError.badRequest("A form must be sent as application/x-www-form-urlencoded or multipart/form-data.", code: "unsupported_content_type")
        }
    }
}

/// `multipart/form-data` (RFC 7578), enough for browsers' forms: parts separated by the
/// boundary, each with a `Content-Disposition: form-data; name="…"` header.
enum Multipart {
    static func fields(_ body: [UInt8], boundary: String) throws(HTTPError) -> FormFields {
        let malformed = HTTPError.badRequest("The multipart form body is malformed.", code: "malformed_form")
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n--\(boundary)".utf8)
        guard body.starts(with: delimiter) else { throw malformed }
        var fields: [FormFields.Field] = []
        var position = delimiter.count
        while true {
            // After a delimiter: "--" ends the body, CRLF starts a part.
            if body[position...].starts(with: Array("--".utf8)) { break }
            guard body[position...].starts(with: [13, 10]) else { throw malformed }
            position += 2
            guard let headEnd = body[position...].firstRange(of: [13, 10, 13, 10]) else { throw malformed }
            let head = String(decoding: body[position..<headEnd.lowerBound], as: UTF8.self)
            guard let next = body[headEnd.upperBound...].firstRange(of: separator) else { throw malformed }
            let content = Array(body[headEnd.upperBound..<next.lowerBound])
            position = next.upperBound
            var name: String?
            var fileName: String?
            for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
                name = parameter("name", in: line)
                fileName = parameter("filename", in: line)
            }
            guard let name else { throw malformed }
            if let fileName {
                // A file may be binary (an image): its bytes are kept either way.
                fields.append(FormFields.Field(name: name, value: String(validating: content, as: UTF8.self) ?? "", fileName: fileName, bytes: content))
                continue
            }
            guard let value = String(validating: content, as: UTF8.self) else {
                throw HTTPError.badRequest("Form field \(HTTPError.quoting(name)) is not UTF-8 text.", code: "malformed_form")
            }
            fields.append(FormFields.Field(name: name, value: value))
        }
        return FormFields(fields)
    }

    /// A quoted parameter of a header line (`name="csv"`).
    private static func parameter(_ key: String, in line: Substring) -> String? {
        for piece in line.split(separator: ";").dropFirst() {
            let trimmed = piece.trimmingCharacters(in: .whitespaces)
            guard trimmed.lowercased().hasPrefix("\(key)=") else { continue }
            var value = trimmed.dropFirst(key.count + 1)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }
}
