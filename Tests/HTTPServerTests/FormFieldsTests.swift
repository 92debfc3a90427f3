import HTTPServer
import PassServerTesting
import Testing

/// Form bodies as browsers send them: text fields are UTF-8, and a field the handler names as
/// binary (a zip archive's file input) keeps its bytes exactly, whatever they are.
@Suite("Form fields", .offCooperativePool)
struct FormFieldsTests {
    /// A multipart body with a text field and a file part holding `file`.
    static func multipart(file: [UInt8]) -> Request {
        let body = Array("--b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\ngala\r\n".utf8)
            + Array("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"Gala.zip\"\r\nContent-Type: application/zip\r\n\r\n".utf8)
            + file + Array("\r\n--b--\r\n".utf8)
        return Request(method: .POST, headers: ["Content-Type": "multipart/form-data; boundary=b"], body: body)
    }

    static let zipBytes: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 0xFF, 0xFE, 0x00, 0x0D, 0x0A, 0x2D, 0x2D, 0x80]

    @Test("a binary field keeps its bytes (not UTF-8, with CR LF and dashes inside); text fields stay text")
    func binaryField() throws {
        let form = try Self.multipart(file: Self.zipBytes).formFields(binary: ["file"])
        #expect(form.bytes("file") == Self.zipBytes)
        #expect(form["file"] == "", "a binary field has no text value")
        #expect(form.fields.first { $0.name == "file" }?.fileName == "Gala.zip")
        #expect(form["name"] == "gala" && form.bytes("name") == nil)
    }

    @Test("the same bytes in a field not read as binary are refused as not UTF-8")
    func textFieldMustBeText() {
        #expect(throws: HTTPError.self) { _ = try Self.multipart(file: Self.zipBytes).formFields() }
        #expect(throws: HTTPError.self) { _ = try Self.multipart(file: Self.zipBytes).formFields(binary: ["other"]) }
    }

    @Test("a URL-encoded binary field holds the bytes of its text; an empty file part is no bytes")
    func urlEncodedAndEmpty() throws {
        let encoded = Request(method: .POST, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("file=a%20b&name=x".utf8))
        let form = try encoded.formFields(binary: ["file"])
        #expect(form.bytes("file") == Array("a b".utf8) && form["name"] == "x")
        #expect(try Self.multipart(file: []).formFields(binary: ["file"]).bytes("file") == nil)
    }
}
