import Foundation
import PassServerFixtures
import PassServerTesting
import SystemSupport
import Testing

/// A `.pkpasstemplate` folder as Apple's Pass Designer saves one, written to disk by the test and
/// zipped with `/usr/bin/zip` as an organizer would: pass.json full of the designer's sample
/// values, tooling.json, and the icon and logo at @1x, @2x and @3x (the bundled template's PNGs).
enum DesignerFolder {
    /// An event ticket whose values are samples; a `backgroundColor` to edit for a new version.
    static func passJSON(background: String = "rgb(120, 20, 60)") -> String {
        """
        {
          "formatVersion": 1,
          "passTypeIdentifier": "pass.com.example.designer",
          "teamIdentifier": "A1B2C3D4E5",
          "serialNumber": "SAMPLE-0001",
          "authenticationToken": "sample-authentication-token",
          "webServiceURL": "https://designer.example.com/passes/",
          "organizationName": "Riverside Arts",
          "description": "Concert ticket",
          "logoText": "Riverside",
          "foregroundColor": "rgb(255, 255, 255)",
          "backgroundColor": "\(background)",
          "labelColor": "rgb(255, 220, 180)",
          "barcodes": [{"format": "PKBarcodeFormatQR", "message": "SAMPLE-BARCODE", "messageEncoding": "iso-8859-1", "altText": "SAMPLE"}],
          "eventTicket": {
            "primaryFields": [{"key": "eventTitle", "label": "Event", "value": "Spring Gala"}],
            "secondaryFields": [
              {"key": "startDate", "label": "Date", "value": "2027-03-14T19:30:00+01:00", "dateStyle": "PKDateStyleMedium", "timeStyle": "PKDateStyleShort"},
              {"key": "location", "label": "Venue", "value": "Riverside Hall"}
            ],
            "auxiliaryFields": [
              {"key": "holder", "label": "Attendee Name", "value": "John Appleseed"},
              {"key": "seatInfo", "label": "Seat", "value": "Row C, 12"},
              {"key": "tier", "label": "Tier", "value": "Gold"}
            ],
            "backFields": [{"key": "terms", "label": "Terms", "value": "No refunds."}]
          }
        }
        """
    }

    static let toolingJSON = #"{"designerVersion": "1.0", "builderVersion": "1.0.2", "automaticallyGenerateCompatiblePass": false}"#

    /// The images of the folder, from the bundled template.
    static let images = ["icon.png", "icon@2x.png", "icon@3x.png", "logo.png", "logo@2x.png", "logo@3x.png"]

    /// The folder's files: pass.json, tooling.json and the images; `edit` changes them first.
    static func files(background: String = "rgb(120, 20, 60)", edit: (inout [String: [UInt8]]) -> Void = { _ in }) throws -> [String: [UInt8]] {
        var files = ["pass.json": Array(passJSON(background: background).utf8), "tooling.json": Array(toolingJSON.utf8)]
        let bundled = PassServerExecutable.packageRoot.appendingPathComponent("Passes/event-ticket")
        for image in images { files[image] = Array(try Data(contentsOf: bundled.appendingPathComponent(image))) }
        edit(&files)
        return files
    }

    /// `files` written to `<folder>.pkpasstemplate/` in a scratch directory and zipped with
    /// `zip -r` (the folder inside the archive, as the Finder zips it).
    static func zip(_ files: [String: [UInt8]], folder: String = "Gala", sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let directory = try TestCertificates.temporaryDirectory(prefix: "designer-folder")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let root = directory + "/" + folder + ".pkpasstemplate"
        for (path, bytes) in files {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        let process = try ChildProcess(
            "/usr/bin/zip", ["-q", "-r", directory + "/template.zip", folder + ".pkpasstemplate"], directory: directory,
            standardOutput: .nullDevice, standardError: .nullDevice
        )
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "zip failed", sourceLocation: sourceLocation)
        return Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/template.zip")))
    }

    /// The template as it comes from the designer, zipped.
    static func archive(background: String = "rgb(120, 20, 60)") throws -> [UInt8] {
        try zip(try files(background: background))
    }

    /// An archive with entries no honest tool makes (`../evil.png`, an absolute path), written by
    /// Python's zipfile, which stores names as given.
    static func hostileArchive(names: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let directory = try TestCertificates.temporaryDirectory(prefix: "designer-hostile")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as archive:
                for name in sys.argv[2:]:
                    archive.writestr(name, b"x")
            """
        let process = try ChildProcess(
            "/usr/bin/python3", ["-c", script, directory + "/hostile.zip"] + names, standardOutput: .nullDevice, standardError: .nullDevice
        )
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 zipfile failed", sourceLocation: sourceLocation)
        return Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/hostile.zip")))
    }

    /// `POST /admin/v1/templates?name=<name>` with `archive` as the body.
    static func upload(_ app: TestApp, _ archive: [UInt8], name: String, token: String? = nil) throws -> TestResponse {
        try app.request(
            "POST", "/admin/v1/templates?name=\(name)",
            headers: [("Authorization", "Bearer \(token ?? app.adminToken)"), ("Content-Type", "application/zip")], body: archive
        )
    }
}
