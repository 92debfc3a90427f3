import Foundation
@testable import PassBundle
import Testing

/// manifest.json is written around pass.json's hash from halves laid out when the template loads:
/// byte for byte what serializing every entry, keys sorted, gives.
@Suite("manifest.json from the template's halves", .offCooperativePool, .timeLimit(.minutes(1)))
struct ManifestLayoutTests {
    @Test("the halves around pass.json's hash equal the whole manifest serialized, wherever pass.json sorts", arguments: [
        ["icon.png"],
        ["icon.png", "logo.png", "strip@3x.png", "thumbnail@2x.png", "en.lproj/pass.strings"],
        ["a.png", "p.png", "pass.json.png", "pass.strings", "passa.png", "z.png", "é.lproj/pass.strings", "\"quoted\".png"],
    ])
    func halvesMatchTheWhole(paths: [String]) throws {
        var files = Dictionary(uniqueKeysWithValues: paths.map { ($0, Array($0.utf8)) })
        files["pass.json"] = Array(#"{"formatVersion": 1}"#.utf8)
        files["icon.png"] = files["icon.png"] ?? [1]
        let template = try Template(name: "manifest", files: files)
        let hash = try SHA1.hex(Array("some pass.json".utf8))
        var entries = Dictionary(uniqueKeysWithValues: template.files.map { ($0.path, JSONValue.string($0.sha1)) })
        entries["pass.json"] = .string(hash)
        #expect(template.manifest(passJSONHash: hash) == JSONValue.object(entries).serialized)
    }
}
