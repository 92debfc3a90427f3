import Foundation
package import PassServerTesting
import SystemSupport
package import Testing

/// Images for event designs: PNGs of a given size, and their upload to the admin API.
package enum DesignImages {
    /// A PNG of `width`×`height` made by the `vips` command line tool (libvips-tools).
    package static func png(_ width: Int, _ height: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let directory = try TestCertificates.temporaryDirectory(prefix: "design-image")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/image.png"
        let process = try ChildProcess("/usr/bin/vips", ["black", path, String(width), String(height), "--bands", "3"])
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "vips black failed", sourceLocation: sourceLocation)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `POST /admin/v1/images?kind=<kind>` with `bytes` as the body and the app's admin token.
    package static func upload(_ app: TestApp, _ bytes: [UInt8], kind: String, type: String = "image/png") throws -> TestResponse {
        try app.request(
            "POST", "/admin/v1/images?kind=\(kind)", headers: [("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", type)], body: bytes
        )
    }
}
