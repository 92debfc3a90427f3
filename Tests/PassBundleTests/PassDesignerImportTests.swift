import Foundation
import PassBundle
import PassServerTesting
import SystemSupport
import Testing

@Suite("Importing a Pass Designer template (.pkpasstemplate)", .offCooperativePool, .timeLimit(.minutes(3)))
struct PassDesignerImportTests {
    /// The field dictionary of `key` in `group` of a rendered pass.
    private func field(_ pass: [String: Any], _ group: String, _ key: String) -> [String: Any]? {
        ((pass["eventTicket"] as? [String: Any])?[group] as? [[String: Any]])?.first { $0["key"] as? String == key }
    }

    private func render(_ template: Template, _ ticket: TicketData, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let signer = try PassSigner(identity: Fixture.certificates().identity)
        let bytes = try PassBundle.renderPassJSON(template: template, data: ticket, signer: signer)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], sourceLocation: sourceLocation)
    }

    /// The reason `files`, zipped, are refused for; records an issue unless the code is `code`.
    private func refusal(
        _ files: [String: [UInt8]], code: PassBundleError.Code = .invalidTemplate, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let archive = try TestZip.archive(files, under: "Broken.pkpasstemplate")
        let error = #expect(throws: PassBundleError.self, sourceLocation: sourceLocation) { _ = try PassDesignerTemplate(archive: archive) }
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
        return error?.message ?? ""
    }

    @Test("a zipped .pkpasstemplate imports; its fields map to the ticket and the pass it issues verifies")
    func importAndIssue() throws {
        let folder = "Spring Gala.pkpasstemplate"
        var entries = [TestZip.Entry(path: folder + "/", directory: true)]
        entries += try DesignerFixture.files().sorted { $0.key < $1.key }.map { TestZip.Entry(path: folder + "/" + $0.key, bytes: $0.value) }
        entries += [TestZip.Entry(path: "__MACOSX/\(folder)/._pass.json", bytes: [0, 5, 22, 7]), TestZip.Entry(path: folder + "/.DS_Store", bytes: [0, 0, 0, 1])]
        let imported = try PassDesignerTemplate(archive: TestZip.archive(entries))

        #expect(imported.folderName == "Spring Gala")
        #expect(imported.tooling == PassDesignerTemplate.Tooling(designerVersion: "1.0", builderVersion: "1.0.2", automaticallyGenerateCompatiblePass: false))
        #expect(imported.fields.map { "\($0.section.rawValue).\($0.key)" } == [
            "header.doors", "primary.eventTitle", "secondary.startDate", "secondary.location",
            "auxiliary.holder", "auxiliary.seatInfo", "auxiliary.tier", "back.terms",
        ])
        let holder = try #require(imported.fields.first { $0.key == "holder" })
        #expect(holder.label == "Attendee Name" && holder.sampleValue == .string("John Appleseed") && holder.path == "eventTicket.auxiliaryFields[0]")
        #expect(imported.fields.filter(\.isDate).map(\.key) == ["doors", "startDate"])
        let perTicket = Set(imported.ticketValues.map(\.path))
        for path in ["passTypeIdentifier", "teamIdentifier", "serialNumber", "authenticationToken", "webServiceURL", "relevantDate",
                     "barcodes[0].message", "barcodes[0].altText", "semantics.attendeeName", "semantics.eventName"] {
            #expect(perTicket.contains(path), "\(path) not among \(perTicket.sorted())")
        }
        #expect(imported.ticketValues.first { $0.path == "serialNumber" } == .init(path: "serialNumber", sampleValue: .string("SAMPLE-0001"), replacement: .string("{{serialNumber}}")))
        #expect(imported.images == ["icon.png", "icon@2x.png", "logo.png", "logo@2x.png", "strip@2x.png"])
        #expect(imported.filePaths == imported.images, "tooling.json and macOS's extras stay out: \(imported.filePaths)")

        let template = try imported.template(name: "spring-gala", mapping: DesignerFixture.mapping)
        #expect(template.fields == [TemplateField(name: "tier", kind: .string(maxLength: 200, multiline: false))])
        let certificates = try Fixture.certificates()
        var ticket = Fixture.ticket()
        ticket.extra = ["tier": "Platinum"]
        let bundle = try PassBundle.build(template: template, data: ticket, identity: certificates.identity, signingTime: Fixture.signingTime)
        let unpacked = try UnpackedBundle(bundle)
        #expect(try unpacked.verifies(root: certificates.rootCertificate))
        #expect(unpacked.files == ["en.lproj/pass.strings", "icon.png", "icon@2x.png", "logo.png", "logo@2x.png", "manifest.json", "pass.json", "signature", "strip@2x.png"])
        #expect(try unpacked.bytes("logo@2x.png") == DesignerFixture.png("logo@2x.png"))
        #expect(String(decoding: try unpacked.bytes("en.lproj/pass.strings"), as: UTF8.self).contains(#""STATUS_VALID" = "Valid";"#))

        let pass = try unpacked.passJSON()
        // The identity is the server's, whatever the designer wrote.
        #expect(pass["passTypeIdentifier"] as? String == TestCertificates.passTypeIdentifier)
        #expect(pass["teamIdentifier"] as? String == TestCertificates.teamIdentifier)
        #expect(pass["serialNumber"] as? String == ticket.serialNumber)
        #expect(pass["authenticationToken"] as? String == ticket.authenticationToken)
        #expect(pass["webServiceURL"] as? String == ticket.webServiceURL)
        #expect(pass["voided"] as? Bool == false)
        let barcode = try #require((pass["barcodes"] as? [[String: Any]])?.first)
        #expect(barcode["message"] as? String == ticket.serialNumber && barcode["altText"] as? String == ticket.serialNumber)
        // Mapped fields carry the ticket's values.
        #expect(field(pass, "primaryFields", "eventTitle")?["value"] as? String == "Swift Night")
        #expect(field(pass, "secondaryFields", "location")?["value"] as? String == "Hall 1, Tokyo")
        #expect(field(pass, "auxiliaryFields", "holder")?["value"] as? String == "Ada Lovelace")
        #expect(field(pass, "auxiliaryFields", "seatInfo")?["value"] as? String == "B-7")
        #expect(field(pass, "auxiliaryFields", "tier")?["value"] as? String == "Platinum")
        // The start is written in the venue's zone with its offset, the designer's styles kept.
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let start = try #require(field(pass, "secondaryFields", "startDate"))
        #expect(start["value"] as? String == ISO8601Zoned.format(ticket.startsAt, in: tokyo))
        #expect((start["value"] as? String)?.hasSuffix("+09:00") == true)
        #expect(start["ignoresTimeZone"] as? Bool == true && start["dateStyle"] as? String == "PKDateStyleMedium")
        #expect(pass["relevantDate"] as? String == ISO8601Zoned.format(ticket.startsAt, in: tokyo))
        // What was not mapped stays exactly as designed, a date with its own offset included.
        #expect(field(pass, "headerFields", "doors")?["value"] as? String == "2027-03-14T18:45:00+01:00")
        #expect(field(pass, "backFields", "terms")?["attributedValue"] as? String == "<a href='https://example.com'>No refunds.</a>")
        #expect(pass["backgroundColor"] as? String == "rgb(120, 20, 60)" && pass["organizationName"] as? String == "Riverside Arts")
        #expect(pass["suppressStripShine"] as? Bool == true)
        #expect((pass["userInfo"] as? [String: Any])?["designedWith"] as? String == "Pass Designer")
        let semantics = try #require(pass["semantics"] as? [String: Any])
        #expect(semantics["attendeeName"] as? String == "Ada Lovelace" && semantics["eventName"] as? String == "Swift Night")
        #expect(semantics["venueRegionName"] as? String == "Riverside" && semantics["eventType"] as? String == "PKEventTypeLivePerformance")
    }

    @Test("files at the archive's root import too, and a top folder of any name")
    func layouts() throws {
        let files = try DesignerFixture.files()
        let atRoot = try PassDesignerTemplate(archive: TestZip.archive(files))
        #expect(atRoot.folderName == nil)
        #expect(atRoot.fields.count == 8)
        let plainFolder = try PassDesignerTemplate(archive: TestZip.archive(files, under: "Gala"))
        #expect(plainFolder.folderName == "Gala")
        #expect(plainFolder.images.contains("icon.png"))
    }

    @Test("a template without pass.json, with broken JSON, without an icon or of another style is refused with the reason")
    func refusals() throws {
        var files = try DesignerFixture.files()
        files["pass.json"] = nil
        #expect(try refusal(files).contains("has no pass.json"))

        files = try DesignerFixture.files()
        files["pass.json"] = Array("{\"formatVersion\": 1,\n  \"eventTicket\": }".utf8)
        let badJSON = try refusal(files)
        #expect(badJSON.contains("pass.json: is not valid JSON") && badJSON.contains("line 2"), "\(badJSON)")

        files = try DesignerFixture.files()
        files["icon.png"] = nil
        files["icon@2x.png"] = nil
        #expect(try refusal(files).contains("has no icon"))

        let boardingPass = try refusal(DesignerFixture.files { pass in pass["boardingPass"] = pass.removeValue(forKey: "eventTicket") })
        #expect(boardingPass.contains("is a boardingPass pass"), "\(boardingPass)")

        let posterOnly = try refusal(DesignerFixture.files { pass in pass["preferredStyleSchemes"] = ["posterEventTicket"] })
        #expect(posterOnly.contains("poster event ticket only"), "\(posterOnly)")

        files = try DesignerFixture.files()
        files["tooling.json"] = Array(#"{"designerVersion": [1]}"#.utf8)
        #expect(try refusal(files).contains("tooling.json: designerVersion must be a version"))
        files["tooling.json"] = Array("designer 1.0".utf8)
        #expect(try refusal(files).contains("tooling.json: is not valid JSON"))

        files = try DesignerFixture.files()
        files["logo@2x.png"] = Array("GIF89a".utf8)
        #expect(try refusal(files).contains("logo@2x.png: is not a PNG image"))
    }

    @Test("every problem is reported at once")
    func allProblems() throws {
        var files = try DesignerFixture.files { pass in pass["eventTicket"] = ["primaryFields": [["label": "No key"], ["key": "a", "value": "x"], ["key": "a", "value": "y"]]] }
        files["icon.png"] = nil
        files["icon@2x.png"] = nil
        files["tooling.json"] = Array(#"{"automaticallyGenerateCompatiblePass": "yes"}"#.utf8)
        let error = #expect(throws: PassBundleError.self) { _ = try PassDesignerTemplate(files: files) }
        #expect(error?.issues.map(\.description) == [
            "tooling.json: automaticallyGenerateCompatiblePass must be true or false",
            "eventTicket.primaryFields[0]: has no key",
            "eventTicket.primaryFields[2]: uses the key \"a\" of another field",
            "template: has no icon (icon.png, icon@2x.png or icon@3x.png): Wallet requires one",
        ])
    }

    @Test("the archive is bounded: no path leaves the folder, no link, no more entries or bytes than the limits")
    func archiveLimits() throws {
        let files = try DesignerFixture.files()
        func refused(_ extra: TestZip.Entry, limits: ArchiveLimits = ArchiveLimits(), sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            let entries = files.sorted { $0.key < $1.key }.map { TestZip.Entry(path: $0.key, bytes: $0.value) } + [extra]
            let archive = try TestZip.archive(entries)
            let error = #expect(throws: PassBundleError.self, sourceLocation: sourceLocation) { _ = try PassDesignerTemplate(archive: archive, limits: limits) }
            #expect(error?.code == .invalidArchive, "\(String(describing: error))", sourceLocation: sourceLocation)
            return error?.message ?? ""
        }
        #expect(try refused(TestZip.Entry(path: "../evil.png", bytes: [1])).contains("leaves the archive's folder"))
        #expect(try refused(TestZip.Entry(path: "en.lproj/../../evil.png", bytes: [1])).contains("leaves the archive's folder"))
        #expect(try refused(TestZip.Entry(path: "__MACOSX/../../evil", bytes: [1])).contains("leaves the archive's folder"))
        #expect(try refused(TestZip.Entry(path: "/etc/cron.d/evil", bytes: [1])).contains("absolute path"))
        #expect(try refused(TestZip.Entry(path: "..\\evil.png", bytes: [1])).contains("backslash"))
        #expect(try refused(TestZip.Entry(path: "thumbnail.png", bytes: Array("/etc/passwd".utf8), unixMode: 0o120777)).contains("symbolic link"))
        let big = TestZip.Entry(path: "background.png", bytes: [UInt8](repeating: 0, count: 21 << 20))
        #expect(try refused(big).contains("more than \(20 << 20) bytes once uncompressed"))
        #expect(try refused(TestZip.Entry(path: "artwork.png", bytes: [UInt8](repeating: 7, count: 5000)), limits: ArchiveLimits(maxUncompressedSize: 4000))
            .contains("more than 4000 bytes"))

        let crowd = (0..<200).map { TestZip.Entry(path: "en.lproj/extra\($0).txt", bytes: [1]) } + files.map { TestZip.Entry(path: $0.key, bytes: $0.value) }
        let error = #expect(throws: PassBundleError.self) { _ = try PassDesignerTemplate(archive: TestZip.archive(crowd)) }
        #expect(error?.code == .invalidArchive && error?.message.contains("at most 200 are accepted") == true, "\(String(describing: error))")
        // Every entry's problem at once, each as an issue naming the entry.
        let several = try TestZip.archive(files.sorted { $0.key < $1.key }.map { TestZip.Entry(path: $0.key, bytes: $0.value) } + [
            TestZip.Entry(path: "../evil.png", bytes: [1]), TestZip.Entry(path: "/etc/cron.d/evil", bytes: [1]),
            TestZip.Entry(path: "thumbnail.png", bytes: Array("/etc/passwd".utf8), unixMode: 0o120777),
        ])
        let all = #expect(throws: PassBundleError.self) { _ = try PassDesignerTemplate(archive: several) }
        #expect(all?.issues.map(\.description) == [
            "../evil.png: leaves the archive's folder (..)", "/etc/cron.d/evil: has an absolute path", "thumbnail.png: is a symbolic link",
        ], "\(String(describing: all))")
        let notZip = #expect(throws: PassBundleError.self) { _ = try PassDesignerTemplate(archive: Array("pass.json".utf8)) }
        #expect(notZip?.code == .invalidArchive)
        // Within the limits, the same files import.
        #expect(throws: Never.self) { _ = try PassDesignerTemplate(archive: TestZip.archive(files), limits: ArchiveLimits(maxUncompressedSize: 1 << 20, maxEntries: files.count)) }
    }

    @Test("an end, a status and a text mapped onto a date field: each renders as the ticket needs")
    func sources() throws {
        let imported = try PassDesignerTemplate(files: DesignerFixture.files())
        var mapping = DesignerFixture.mapping
        mapping["doors"] = .endsAt
        mapping["tier"] = .status
        let template = try imported.template(name: "gala", mapping: mapping)
        var ticket = Fixture.ticket()
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let ends = try #require(ticket.endsAt)
        let withEnd = try render(template, ticket)
        #expect(field(withEnd, "headerFields", "doors")?["value"] as? String == ISO8601Zoned.format(ends, in: tokyo))
        #expect(field(withEnd, "auxiliaryFields", "tier")?["value"] as? String == "STATUS_VALID")
        #expect(field(withEnd, "backFields", "cancellation") == nil)

        ticket.endsAt = nil
        ticket.cancelled = true
        ticket.cancellationReason = "Venue closed"
        ticket.seat = nil
        let cancelled = try render(template, ticket)
        #expect(field(cancelled, "headerFields", "doors") == nil, "a field mapped to the end disappears for an event without one")
        #expect(field(cancelled, "auxiliaryFields", "tier")?["value"] as? String == "STATUS_CANCELLED")
        #expect(field(cancelled, "auxiliaryFields", "seatInfo")?["value"] as? String == "GENERAL_ADMISSION")
        #expect(cancelled["voided"] as? Bool == true && cancelled["relevantDate"] == nil)
        let back = try #require((cancelled["eventTicket"] as? [String: Any])?["backFields"] as? [[String: Any]])
        #expect(back.first?["key"] as? String == "cancellation" && back.first?["value"] as? String == "Venue closed")

        mapping["doors"] = .attendeeName
        let asText = try render(imported.template(name: "gala", mapping: mapping), Fixture.ticket())
        let doors = try #require(field(asText, "headerFields", "doors"))
        #expect(doors["value"] as? String == "Ada Lovelace" && doors["timeStyle"] == nil && doors["ignoresTimeZone"] == nil)
    }

    @Test("a mapping naming no field, a bad extra name, or designer values Wallet refuses are refused at conversion")
    func conversionRefusals() throws {
        let imported = try PassDesignerTemplate(files: DesignerFixture.files())
        let unknown = #expect(throws: PassBundleError.self) { _ = try imported.template(name: "gala", mapping: ["nosuch": .venue]) }
        #expect(unknown?.issues.map(\.key) == ["mapping.nosuch"])
        let badExtra = #expect(throws: PassBundleError.self) { _ = try imported.template(name: "gala", mapping: ["tier": .extra("9 lives")]) }
        #expect(badExtra?.message.contains("must be a letter") == true)
        let badName = #expect(throws: PassBundleError.self) { _ = try imported.template(name: "../gala", mapping: [:]) }
        #expect(badName?.code == .invalidTemplate)

        let hexColour = try PassDesignerTemplate(files: DesignerFixture.files { $0["backgroundColor"] = "#781E3C" })
        let colour = #expect(throws: PassBundleError.self) { _ = try hexColour.template(name: "gala", mapping: DesignerFixture.mapping) }
        #expect(colour?.issues.map(\.key) == ["backgroundColor"], "\(String(describing: colour))")
        let braces = try PassDesignerTemplate(files: DesignerFixture.files { $0["logoText"] = "Hi {{nickname}}" })
        let placeholder = #expect(throws: PassBundleError.self) { _ = try braces.template(name: "gala", mapping: DesignerFixture.mapping) }
        #expect(placeholder?.message.contains("{{nickname}}") == true, "\(String(describing: placeholder))")
    }

    @Test("the default mapping is guessed from keys and labels", arguments: [
        ("attendeeName", nil, FieldSource.attendeeName), ("holder", "Attendee Name", .attendeeName), ("name", nil, .attendeeName),
        ("ATTENDEE_NAME", nil, .attendeeName), ("eventName", "EVENT", .eventName), ("title", nil, .eventName),
        ("venueName", nil, .venue), ("where", "Location", .venue), ("eventDate", nil, .startsAt), ("starts", "Doors open", .startsAt),
        ("closing", "Ends", .endsAt), ("seat", nil, .seat), ("row", "Seat", .seat), ("ticketNumber", nil, .serialNumber),
        ("status", nil, .status), ("terms", "Terms", .constant), ("tier", "Tier", .constant),
    ] as [(String, String?, FieldSource)])
    func guesses(key: String, label: String?, expected: FieldSource) {
        #expect(FieldSource.guess(key: key, label: label) == expected)
    }

    @Test("a source's text form reads back as the same source; the imported fields come pre-filled")
    func sourceText() throws {
        for source in FieldSource.ticketSources + [.extra("gate")] {
            #expect(FieldSource(rawValue: source.rawValue) == source)
        }
        #expect(FieldSource(rawValue: "extra.gate") == .extra("gate") && FieldSource(rawValue: "bogus") == nil)
        let imported = try PassDesignerTemplate(files: DesignerFixture.files())
        #expect(imported.defaultMapping == [
            "doors": .constant, "eventTitle": .eventName, "startDate": .startsAt, "location": .venue,
            "holder": .attendeeName, "seatInfo": .seat, "tier": .constant, "terms": .constant,
        ])
    }

    @Test("the designer's localizations get PassServer's texts in their language; tooling.json may be absent")
    func localizations() throws {
        var files = try DesignerFixture.files()
        files["tooling.json"] = nil
        files["ja.lproj/pass.strings"] = Array("\"Doors\" = \"開場\";".utf8)
        files["en.lproj/pass.strings"] = Array(#""Doors" = "Doors";"#.utf8)
        let imported = try PassDesignerTemplate(files: files)
        #expect(imported.tooling == nil)
        let template = try imported.template(name: "gala", mapping: DesignerFixture.mapping)
        #expect(template.localizations == ["en", "ja"])
        let certificates = try Fixture.certificates()
        let unpacked = try UnpackedBundle(try PassBundle.build(template: template, data: Fixture.ticket(), identity: certificates.identity))
        let japanese = String(decoding: try unpacked.bytes("ja.lproj/pass.strings"), as: UTF8.self)
        #expect(japanese.hasPrefix("\"Doors\" = \"開場\";") && japanese.contains(#""STATUS_VALID" = "有効";"#), "\(japanese)")
        #expect(String(decoding: try unpacked.bytes("en.lproj/pass.strings"), as: UTF8.self).contains(#""GENERAL_ADMISSION" = "General admission";"#))
    }

    @Test("what the import changes is stated: an icon from @2x, a QR code added, nfc removed, a poster with its fallback")
    func notes() throws {
        var files = try DesignerFixture.files { pass in
            pass["barcodes"] = nil
            pass["nfc"] = ["message": "same-for-all", "encryptionPublicKey": "MDkw"]
            pass["preferredStyleSchemes"] = ["posterEventTicket", "eventTicket"]
        }
        files["icon.png"] = nil
        let imported = try PassDesignerTemplate(files: files)
        let notes = imported.notes.joined(separator: "\n")
        #expect(notes.contains("icon@2x.png serves as icon.png"))
        #expect(notes.contains("QR code"))
        #expect(notes.contains("nfc was removed"))
        #expect(notes.contains("poster event ticket"))
        let template = try imported.template(name: "gala", mapping: DesignerFixture.mapping)
        #expect(template.filePaths.contains("icon.png"))
        let pass = try render(template, Fixture.ticket())
        #expect(pass["nfc"] == nil)
        #expect((pass["preferredStyleSchemes"] as? [String]) == ["posterEventTicket", "eventTicket"])
        let barcode = try #require((pass["barcodes"] as? [[String: Any]])?.first)
        #expect(barcode["format"] as? String == "PKBarcodeFormatQR" && barcode["message"] as? String == pass["serialNumber"] as? String)
    }
}
