import Foundation
@testable import HTTPServer
import PassServerTesting
import Testing

/// Form bodies as browsers send them: a file input's part keeps its bytes whatever they are (an
/// image), text parts must be UTF-8.
@Suite(.offCooperativePool) struct FormTests {
    static func body(_ parts: [(head: String, content: [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for part in parts { body += Array("--b\r\n\(part.head)\r\n\r\n".utf8) + part.content + Array("\r\n".utf8) }
        return body + Array("--b--\r\n".utf8)
    }

    @Test func binaryFilePartsKeepTheirBytes() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF, 0x00, 0x0D, 0x0A, 0x2D]
        let form = try Multipart.fields(Self.body([
            ("Content-Disposition: form-data; name=\"logoText\"", Array("Harbour".utf8)),
            ("Content-Disposition: form-data; name=\"images.logo\"; filename=\"logo.png\"\r\nContent-Type: image/png", png),
            ("Content-Disposition: form-data; name=\"file\"; filename=\"a.csv\"", Array("name\nAda".utf8)),
            ("Content-Disposition: form-data; name=\"images.strip\"; filename=\"\"", []),
        ]), boundary: "b")
        #expect(form["logoText"] == "Harbour")
        let logo = try #require(form.file("images.logo"))
        #expect(logo.bytes == png && logo.value.isEmpty && logo.isBinaryFile && logo.fileName == "logo.png")
        let csv = try #require(form.file("file"))
        #expect(csv.value == "name\nAda" && csv.bytes == Array("name\nAda".utf8) && !csv.isBinaryFile, "a text file is also its value")
        #expect(form.file("images.strip") == nil, "an empty file input is no file")
        #expect(form.file("logoText") == nil, "a text field is no file")
    }

    @Test func binaryTextPartsAreRefused() {
        #expect(throws: HTTPError.self) {
            try Multipart.fields(Self.body([("Content-Disposition: form-data; name=\"logoText\"", [0xFF, 0xFE])]), boundary: "b")
        }
    }
}
