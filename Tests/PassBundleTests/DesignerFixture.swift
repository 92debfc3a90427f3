import Foundation
import PassBundle

/// A `.pkpasstemplate` as Pass Designer saves one, made in memory: a pass.json full of sample
/// values, tooling.json, and images (the bundled template's PNGs).
enum DesignerFixture {
    /// An event ticket whose values are the designer's samples; `doors` holds a date with its
    /// own offset that no mapping touches.
    static let passJSON = """
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
          "backgroundColor": "rgb(120, 20, 60)",
          "labelColor": "rgb(255, 220, 180)",
          "relevantDate": "2027-03-14T19:30:00+01:00",
          "suppressStripShine": true,
          "userInfo": {"designedWith": "Pass Designer"},
          "barcodes": [
            {"format": "PKBarcodeFormatQR", "message": "SAMPLE-BARCODE", "messageEncoding": "iso-8859-1", "altText": "SAMPLE"}
          ],
          "semantics": {
            "eventName": "Spring Gala",
            "attendeeName": "John Appleseed",
            "venueRegionName": "Riverside",
            "eventType": "PKEventTypeLivePerformance"
          },
          "eventTicket": {
            "headerFields": [
              {"key": "doors", "label": "Doors", "value": "2027-03-14T18:45:00+01:00", "timeStyle": "PKDateStyleShort", "ignoresTimeZone": true}
            ],
            "primaryFields": [
              {"key": "eventTitle", "label": "Event", "value": "Spring Gala"}
            ],
            "secondaryFields": [
              {"key": "startDate", "label": "Date", "value": "2027-03-14T19:30:00+01:00",
               "dateStyle": "PKDateStyleMedium", "timeStyle": "PKDateStyleShort", "ignoresTimeZone": true},
              {"key": "location", "label": "Venue", "value": "Riverside Hall"}
            ],
            "auxiliaryFields": [
              {"key": "holder", "label": "Attendee Name", "value": "John Appleseed"},
              {"key": "seatInfo", "label": "Seat", "value": "Row C, 12"},
              {"key": "tier", "label": "Tier", "value": "Gold"}
            ],
            "backFields": [
              {"key": "terms", "label": "Terms", "value": "No refunds.", "attributedValue": "<a href='https://example.com'>No refunds.</a>"}
            ]
          }
        }
        """

    static let toolingJSON = #"{"designerVersion": "1.0", "builderVersion": "1.0.2", "automaticallyGenerateCompatiblePass": false}"#

    /// One of the bundled template's PNGs.
    static func png(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: Fixture.templateDirectory + "/" + name)))
    }

    /// The template folder's files by path.
    static func files() throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = ["pass.json": Array(passJSON.utf8), "tooling.json": Array(toolingJSON.utf8)]
        for image in ["icon.png", "icon@2x.png", "logo.png", "logo@2x.png", "strip@2x.png"] { files[image] = try png(image) }
        return files
    }

    /// The files with pass.json edited as a JSON object.
    static func files(editing edit: (inout [String: Any]) -> Void) throws -> [String: [UInt8]] {
        var files = try files()
        var object = try JSONSerialization.jsonObject(with: Data(passJSON.utf8)) as? [String: Any] ?? [:]
        edit(&object)
        files["pass.json"] = Array(try JSONSerialization.data(withJSONObject: object))
        return files
    }

    /// The mapping a form would send: the guesses, with the tier as an extra field.
    static var mapping: [String: FieldSource] {
        ["eventTitle": .eventName, "startDate": .startsAt, "location": .venue, "holder": .attendeeName, "seatInfo": .seat, "tier": .extra("tier")]
    }
}
