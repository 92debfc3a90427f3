import Certificates
import ByteEncoding
import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import SystemSupport
import Testing

@testable import PassServer

/// An event's own design over the admin API: images checked, scaled and stored once; a design
/// with colours, images and Wallet details reaches the bundle, which openssl verifies; a design
/// change bumps every pass, pushes its phones and serves the new bundle.
@Suite("Admin API: pass designs and images", .offCooperativePool, .timeLimit(.minutes(5)))
struct EventDesignTests {
    /// A 1×1 GIF.
    static let gif: [UInt8] = [
        0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x21, 0xF9, 0x04, 0x01,
        0x00, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B,
    ]

    static func imageCount(_ app: TestApp) throws -> Int {
        try app.store.withSession(.read) { try $0.execute("SELECT id FROM pass_images").count }
    }

    /// The width and height in a PNG's header.
    static func pngSize(_ png: [UInt8]) -> (Int, Int)? {
        guard png.count > 24, png.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        func word(_ offset: Int) -> Int { png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    @Test("a wrong format, an oversized file, a wrong aspect ratio and a non-image are 400s naming the problem; nothing is stored", arguments: Backend.allCases)
    func refusedUploads(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let good = try DesignImages.png(1125, 294)
        let cases: [(String, [UInt8], String, String)] = [
            ("a GIF", Self.gif, "logo", "GIF"),
            ("a file over 5 MiB", good + [UInt8](repeating: 0, count: 5 << 20), "strip", "MiB"),
            ("a square strip", try DesignImages.png(1200, 1200), "strip", "375:98"),
            ("text", Array("not an image at all".utf8), "icon", "not an image"),
            ("a strip too small for @3x", try DesignImages.png(375, 98), "strip", "1125"),
        ]
        for (name, bytes, kind, words) in cases {
            let response = try DesignImages.upload(app, bytes, kind: kind)
            #expect(response.status == 400, "\(name): \(response.status) \(response.text)")
            #expect(response.text.contains(words), "\(name) is refused naming the problem: \(response.text)")
        }
        let unknownKind = try DesignImages.upload(app, good, kind: "poster")
        #expect(unknownKind.status == 400 && unknownKind.text.contains("kind"))
        #expect(try Self.imageCount(app) == 0, "nothing is stored for a refused upload")
        // The same file as a strip is taken: the refusals above were about the files.
        let accepted = try DesignImages.upload(app, good, kind: "strip")
        #expect(accepted.status == 201, "\(accepted.text)")
        #expect(try Self.imageCount(app) == 1)
    }

    @Test("a good upload is stored once as three PNGs of 1x, 2x and 3x the points", arguments: Backend.allCases)
    func goodUpload(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let response = try DesignImages.upload(app, try DesignImages.png(1125, 294), kind: "strip")
        try #require(response.status == 201, "\(response.text)")
        let body = try #require(response.jsonObject)
        #expect(body["kind"] as? String == "strip")
        #expect(body["width"] as? Int == 375 && body["height"] as? Int == 98)
        let id = try #require(body["id"] as? String)
        let stored = try #require(try app.store.withSession(.read) { try $0.images.passImage(id: id) })
        #expect(Self.pngSize(stored.image1x).map { [$0.0, $0.1] } == [375, 98])
        #expect(Self.pngSize(stored.image2x).map { [$0.0, $0.1] } == [750, 196])
        #expect(Self.pngSize(stored.image3x).map { [$0.0, $0.1] } == [1125, 294])
        let again = try DesignImages.upload(app, try DesignImages.png(1125, 294), kind: "strip")
        #expect(again.jsonObject?["id"] as? String == id, "the same image is the same id")
        #expect(try Self.imageCount(app) == 1, "and one row")
        let shown = try app.admin("GET", "/admin/v1/images/\(id)")
        #expect(shown.status == 200 && shown.jsonObject?["id"] as? String == id)
    }

    @Test("uploads are palette PNGs unless colors=full; the answer gives their bytes; another colors value is a 400", arguments: Backend.allCases)
    func uploadColors(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let bytes = try DesignImages.png(1125, 294)
        func upload(_ query: String) throws -> TestResponse {
            try app.request(
                "POST", "/admin/v1/images?kind=strip\(query)", headers: [("Authorization", "Bearer \(app.adminToken)"), ("Content-Type", "image/png")],
                body: bytes)
        }
        let refused = try upload("&colors=sepia")
        #expect(refused.status == 400 && refused.text.contains("colors"), "\(refused.status) \(refused.text)")
        #expect(try Self.imageCount(app) == 0)
        for (query, colourType) in [("", UInt8(3)), ("&colors=palette", 3), ("&colors=full", 2)] {
            let response = try upload(query)
            try #require(response.status == 201, "\(query): \(response.text)")
            let id = try #require(response.jsonObject?["id"] as? String)
            let stored = try #require(try app.store.withSession(.read) { try $0.images.passImage(id: id) })
            #expect([stored.image1x, stored.image2x, stored.image3x].allSatisfy { $0[25] == colourType }, "\(query): PNG colour type \(colourType)")
            #expect(response.jsonObject?["bytes"] as? Int == stored.image1x.count + stored.image2x.count + stored.image3x.count)
        }
        #expect(try Self.imageCount(app) == 2, "the default and colors=palette are the same image; full colour another")
    }

    static func design(logo: String, strip: String) -> String {
        """
        {"backgroundColor": "#102030", "foregroundColor": "rgb(250, 250, 250)", "labelColor": "#ffcc00", "logoText": "Harbour {{attendeeName}}",
         "images": {"logo": "\(logo)", "strip": "\(strip)"},
         "details": {"venueName": "Harbour Hall", "venueRegionName": "Lisbon", "venueRoom": "Main Stage",
                     "venueLocation": {"latitude": 38.7071, "longitude": -9.1359}, "entranceDescription": "Gate B, river side",
                     "admissionLevel": "Floor", "kind": {"type": "livePerformance", "performerNames": ["The Quiet Ones"]},
                     "guide": {"bagPolicyURL": "https://example.com/bags", "parkingInformationURL": "https://example.com/parking"},
                     "featuredActions": [{"type": "listenToMusic", "url": "https://example.com/listen"}]}}
        """
    }

    @Test("a custom design reaches the phone: a push, the serial listed, a new bundle with the design, verified by openssl", arguments: Backend.allCases)
    func designReachesThePhone(backend: Backend) async throws {
        let (app, fake) = try AdminSupport.startWithFakeAPNs(backend)
        defer { app.stop(); fake.shutdown() }
        let event = try app.createEvent(name: "Autumn Jazz", venue: "Harbour Hall")
        let serial = try app.issueTicket(event: event)
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        let (_, _, tag) = try phone.changedSerials()
        let before = try phone.fetch(serial)
        try #require(before.status == 200)
        let lastModified = try #require(before.header("Last-Modified"))
        let pushesBefore = fake.pushes.count

        let logo = try #require(try DesignImages.upload(app, try DesignImages.png(480, 150), kind: "logo").jsonObject?["id"] as? String)
        let strip = try #require(try DesignImages.upload(app, try DesignImages.png(1125, 294), kind: "strip").jsonObject?["id"] as? String)
        let saved = try app.admin("PUT", "/admin/v1/events/\(event)/design", json: Self.design(logo: logo, strip: strip))
        try #require(saved.status == 200, "\(saved.text)")
        let job = try #require((saved.jsonObject?["job"] as? [String: Any])?["id"] as? String, "a design change starts the re-push job")
        try await eventually("the job is done and the phone pushed", timeout: 60) {
            try app.admin("GET", "/admin/v1/jobs/\(job)").jsonObject?["state"] as? String == "done" && fake.pushes.count > pushesBefore
        }
        let push = try #require(fake.pushes.last)
        #expect(push.token == phone.pushToken && push.body == Array("{}".utf8), "an empty payload to the phone")
        let changed = try phone.changedSerials(since: tag)
        #expect(changed.serials == [serial], "the phone is told the pass changed")
        let stale = try phone.fetch(serial, ifModifiedSince: lastModified)
        #expect(stale.status == 200, "never a 304 for a changed bundle")
        #expect(stale.header("Last-Modified") != lastModified)

        let files = try PassArchive.files(stale.body)
        let pass = try PassArchive.passJSON(stale.body)
        #expect(pass["backgroundColor"] as? String == "rgb(16, 32, 48)")
        #expect(pass["foregroundColor"] as? String == "rgb(250, 250, 250)")
        #expect(pass["labelColor"] as? String == "rgb(255, 204, 0)")
        #expect(pass["logoText"] as? String == "Harbour {{attendeeName}}", "the logo text is text, never a placeholder")
        let semantics = try #require(pass["semantics"] as? [String: Any])
        #expect(semantics["venueName"] as? String == "Harbour Hall")
        #expect(semantics["venueRegionName"] as? String == "Lisbon")
        #expect(semantics["venueRoom"] as? String == "Main Stage")
        #expect(semantics["performerNames"] as? [String] == ["The Quiet Ones"])
        #expect((pass["relevantDates"] as? [[String: Any]])?.isEmpty == false)
        let location = try #require((pass["locations"] as? [[String: Any]])?.first)
        #expect(location["latitude"] as? Double == 38.7071)
        #expect(pass["bagPolicyURL"] as? String == "https://example.com/bags")
        #expect(pass["parkingInformationURL"] as? String == "https://example.com/parking")
        #expect((pass["featuredActions"] as? [[String: Any]])?.count == 1)

        // The design's images are in the bundle, byte for byte, and the manifest covers every file.
        let stored = try #require(try app.store.withSession(.read) { try $0.images.passImage(id: strip) })
        #expect(files["strip@2x.png"] == stored.image2x && files["strip.png"] == stored.image1x && files["strip@3x.png"] == stored.image3x)
        #expect(files["logo@3x.png"] != nil)
        let manifestFile = try #require(files["manifest.json"])
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(manifestFile)) as? [String: String])
        for (name, bytes) in files where name != "manifest.json" && name != "signature" {
            #expect(manifest[name] == Hex.encode(try Digest.sha1().hash(bytes)), "manifest entry of \(name)")
        }
        #expect(Set(manifest.keys) == Set(files.keys).subtracting(["manifest.json", "signature"]))
        try Self.verifySignature(files, root: app.certificates.rootCertificate)
    }

    /// `openssl smime -verify` of the bundle's signature over its manifest, against the test PKI's root.
    static func verifySignature(_ files: [String: [UInt8]], root: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "design-verify")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["signature", "manifest.json"] {
            try Data(try #require(files[name], sourceLocation: sourceLocation)).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        let process = try ChildProcess("/usr/bin/openssl", [
            "smime", "-verify", "-binary", "-inform", "DER", "-in", directory + "/signature", "-content", directory + "/manifest.json",
            "-CAfile", root, "-purpose", "any", "-out", "/dev/null",
        ], standardOutput: .nullDevice, standardError: .nullDevice)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "openssl smime -verify failed", sourceLocation: sourceLocation)
    }

    @Test("a design is refused field by field: colours, unknown images, images of another kind, http links, unknown fields", arguments: Backend.allCases)
    func refusedDesigns(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent()
        let logo = try #require(try DesignImages.upload(app, try DesignImages.png(480, 150), kind: "logo").jsonObject?["id"] as? String)
        let cases: [(String, String)] = [
            (##"{"backgroundColor": "navy"}"##, "backgroundColor"),
            (#"{"images": {"strip": "\#(logo)"}}"#, "images.strip"),
            (#"{"images": {"logo": "\#(String(repeating: "a", count: 64))"}}"#, "images.logo"),
            (#"{"details": {"guide": {"bagPolicyURL": "http://example.com/bags"}}}"#, "details.guide.bagPolicyURL"),
            (#"{"details": {"venueLocation": {"latitude": 91, "longitude": 0}}}"#, "details.venueLocation.latitude"),
            (##"{"colour": "#ffffff"}"##, "colour"),
            (#"{"details": {"venueName": 7}}"#, "details.venueName"),
            (#"{"details": {"usePoster": true}}"#, "details"),
            ("[]", "body"),
        ]
        for (body, field) in cases {
            let response = try app.admin("PUT", "/admin/v1/events/\(event)/design", json: body)
            #expect(response.status == 400, "\(body): \(response.status) \(response.text)")
            #expect(response.text.contains("\"\(field)"), "\(body) is refused under \(field): \(response.text)")
        }
        let design = try app.admin("GET", "/admin/v1/events/\(event)/design")
        #expect(design.status == 200 && design.jsonObject?["backgroundColor"] == nil, "nothing was saved: \(design.text)")
        let event2 = try app.admin("GET", "/admin/v1/events/\(event)")
        #expect(event2.status == 200)
        // The same design twice: the second save changes nothing and starts no job.
        let first = try app.admin("PUT", "/admin/v1/events/\(event)/design", json: ##"{"backgroundColor": "#000000"}"##)
        #expect(first.status == 200 && first.jsonObject?["job"] as? [String: Any] != nil, "\(first.text)")
        let second = try app.admin("PUT", "/admin/v1/events/\(event)/design", json: #"{"backgroundColor": "rgb(0, 0, 0)"}"#)
        #expect(second.status == 200 && second.jsonObject?["job"] as? [String: Any] == nil, "\(second.text)")
    }
}
