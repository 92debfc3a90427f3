import Foundation
import PassServerTesting
import SystemSupport
import Testing

/// Unzips a served `.pkpass` with `/usr/bin/unzip`, as a reviewer would, for tests that read what phones get.
package enum PassArchive {
    /// The files of a `.pkpass` body, unzipped with `/usr/bin/unzip` into a temporary directory.
    package static func files(_ bundle: [UInt8]) throws -> [String: [UInt8]] {
        let directory = try TestCertificates.temporaryDirectory(prefix: "passserver-unzip")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let archive = directory + "/pass.pkpass"
        try Data(bundle).write(to: URL(fileURLWithPath: archive))
        let output = directory + "/files"
        let process = try ChildProcess(
            "/usr/bin/unzip", ["-q", "-o", archive, "-d", output], standardOutput: .nullDevice, standardError: .nullDevice
        )
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestClient.Failure(description: "unzip failed with status \(process.terminationStatus)")
        }
        var files: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: output)
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = output + "/" + name
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[name] = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            }
        }
        return files
    }

    /// `pass.json` of a `.pkpass` body as a JSON object.
    package static func passJSON(_ bundle: [UInt8]) throws -> [String: Any] {
        let file = try #require(try files(bundle)["pass.json"], "the bundle holds pass.json")
        return try #require(try JSONSerialization.jsonObject(with: Data(file)) as? [String: Any])
    }

    /// Every string value anywhere in `pass.json` (field values live in nested arrays).
    package static func strings(in value: Any) -> [String] {
        switch value {
        case let text as String: [text]
        case let array as [Any]: array.flatMap(strings(in:))
        case let object as [String: Any]: object.values.flatMap(strings(in:))
        default: []
        }
    }
}
