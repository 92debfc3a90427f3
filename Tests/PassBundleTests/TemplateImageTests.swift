import Foundation
import PassServerTesting
import Testing

@Suite("Event-ticket template images", .offCooperativePool, .timeLimit(.minutes(3)))
struct TemplateImageTests {
    /// Width and height from a PNG's IHDR chunk.
    private func pixelSize(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (Int, Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(bytes.count > 24, "\(path) is too short for a PNG", sourceLocation: sourceLocation)
        #expect(Array(bytes[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "\(path) is not a PNG", sourceLocation: sourceLocation)
        #expect(String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR", "\(path)", sourceLocation: sourceLocation)
        func be32(_ offset: Int) -> Int { bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }

    @Test("icon, logo and strip exist at @1x, @2x and @3x with Apple's pixel sizes", arguments: [
        ("icon", 29, 29), ("logo", 160, 50), ("strip", 375, 123),
    ])
    func sizes(name: String, width: Int, height: Int) throws {
        for (scale, suffix) in [(1, ""), (2, "@2x"), (3, "@3x")] {
            let size = try pixelSize(Fixture.templateDirectory + "/\(name)\(suffix).png")
            #expect(size == (width * scale, height * scale), "\(name)\(suffix).png is \(size)")
        }
    }

    @Test("the committed PNGs are exactly what scripts/make-images.py draws")
    func reproducible() throws {
        let output = try Fixture.directory("images")
        let result = try run("python3", [Fixture.repositoryRoot + "/scripts/make-images.py", output])
        #expect(result.status == 0, "\(result.error)")
        for name in ["icon", "logo", "strip"] {
            for suffix in ["", "@2x", "@3x"] {
                let file = "/\(name)\(suffix).png"
                let committed = try Data(contentsOf: URL(fileURLWithPath: Fixture.templateDirectory + file))
                #expect(committed == (try Data(contentsOf: URL(fileURLWithPath: output + file))), "\(file) differs")
            }
        }
    }
}
