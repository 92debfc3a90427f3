import Foundation
import PassServerFixtures
import PassServerTesting
import SystemSupport
import Testing

@testable import PassServer

/// NFC entry follows the operator's configuration: without `PASS_NFC_READER_KEY` (a pass type
/// certificate not enabled for NFC) a design asking for NFC or a poster is refused naming the
/// setting; with it, a poster with NFC is saved and every pass carries `nfc` with the readers' key.
@Suite("Admin API: NFC entry and posters follow the server's NFC configuration", .offCooperativePool, .timeLimit(.minutes(5)))
struct EventNFCTests {
    /// Base64 of the SubjectPublicKeyInfo of a fresh P-256 key, made by openssl.
    static func readerKey(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let process = try ChildProcess(
            "/bin/sh", ["-c", "openssl ecparam -name prime256v1 -genkey | openssl ec -pubout -outform DER | base64 -w0"],
            standardOutput: .pipe, standardError: .pipe
        )
        let (output, _) = try process.readToEnd()
        process.waitUntilExit()
        let key = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(process.terminationStatus == 0 && !key.isEmpty, "openssl made no key", sourceLocation: sourceLocation)
        return key
    }

    /// A sports poster complete but for what `extra` adds or takes away.
    static func posterDesign(artwork: String, nfc: String?) -> String {
        let nfcJSON = nfc.map { #", "nfc": \#($0)"# } ?? ""
        return """
            {"images": {"artwork": "\(artwork)"},
             "details": {"venueName": "Harbour Stadium", "venueRegionName": "Lisbon", "venueRoom": "North Stand",
                         "kind": {"type": "sports", "homeTeamAbbreviation": "LIS", "awayTeamAbbreviation": "POR"},
                         "usePoster": true, "eventLogoText": "Derby"\(nfcJSON)}}
            """
    }

    static func uploadArtwork(_ app: TestApp, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let response = try DesignImages.upload(app, try DesignImages.png(1074, 1344, sourceLocation: sourceLocation), kind: "artwork")
        try #require(response.status == 201, "\(response.text)", sourceLocation: sourceLocation)
        return try #require(response.jsonObject?["id"] as? String, sourceLocation: sourceLocation)
    }

    @Test("without PASS_NFC_READER_KEY, NFC entry and posters are refused naming the setting; nothing is saved", arguments: Backend.allCases)
    func refusedWithoutConfiguration(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent(name: "Derby", venue: "Harbour Stadium")
        let artwork = try Self.uploadArtwork(app)
        let key = try Self.readerKey()
        let cases = [
            #"{"details": {"nfc": {"requiresAuthentication": true}}}"#,
            #"{"details": {"nfc": {"encryptionPublicKey": "\#(key)"}}}"#,
            Self.posterDesign(artwork: artwork, nfc: #"{"requiresAuthentication": true}"#),
            Self.posterDesign(artwork: artwork, nfc: nil),
        ]
        for body in cases {
            let response = try app.admin("PUT", "/admin/v1/events/\(event)/design", json: body)
            #expect(response.status == 400, "\(body): \(response.status) \(response.text)")
            #expect(response.text.contains("details.nfc:") && response.text.contains("PASS_NFC_READER_KEY"), "\(body): \(response.text)")
        }
        let design = try app.admin("GET", "/admin/v1/events/\(event)/design")
        let details = design.jsonObject?["details"] as? [String: Any]
        #expect(design.status == 200 && details?["nfc"] == nil && details?["venueRoom"] == nil, "nothing was saved: \(design.text)")
    }

    @Test("with PASS_NFC_READER_KEY a complete poster with NFC is saved and its passes carry nfc with the readers' key", arguments: Backend.allCases)
    func posterWithConfiguration(backend: Backend) throws {
        let key = try Self.readerKey()
        let app = try TestApp.start(backend) { $0.signing.nfcReaderKey = key }
        defer { app.stop() }
        let event = try app.createEvent(name: "Derby", venue: "Harbour Stadium")
        let serial = try app.issueTicket(event: event)
        let artwork = try Self.uploadArtwork(app)

        // The configuration makes NFC possible; a poster still needs it.
        let withoutNFC = try app.admin("PUT", "/admin/v1/events/\(event)/design", json: Self.posterDesign(artwork: artwork, nfc: nil))
        #expect(withoutNFC.status == 400 && withoutNFC.text.contains("details.nfc:"), "\(withoutNFC.text)")
        #expect(!withoutNFC.text.contains("PASS_NFC_READER_KEY"), "the server is set up for NFC: \(withoutNFC.text)")

        let saved = try app.admin("PUT", "/admin/v1/events/\(event)/design", json: Self.posterDesign(artwork: artwork, nfc: #"{"requiresAuthentication": true}"#))
        try #require(saved.status == 200, "\(saved.text)")
        let fetched = try Phone(app: app).fetch(serial)
        try #require(fetched.status == 200)
        let pass = try PassArchive.passJSON(fetched.body)
        let nfc = try #require(pass["nfc"] as? [String: Any], "the pass carries nfc")
        #expect(nfc["encryptionPublicKey"] as? String == key, "the design left the key out: the server's is used")
        #expect(nfc["requiresAuthentication"] as? Bool == true)
        let barcode = try #require((pass["barcodes"] as? [[String: Any]])?.first?["message"] as? String)
        #expect(nfc["message"] as? String == barcode, "the NFC message is the pass's own signed code")
        #expect(pass["preferredStyleSchemes"] as? [String] == ["posterEventTicket", "eventTicket"])
        #expect(pass["eventLogoText"] as? String == "Derby")
        let semantics = try #require(pass["semantics"] as? [String: Any])
        #expect(semantics["homeTeamAbbreviation"] as? String == "LIS" && semantics["awayTeamAbbreviation"] as? String == "POR")
        #expect((pass["eventTicket"] as? [String: Any])?["primaryFields"] != nil, "the classic fields stay for older phones")
        try EventDesignTests.verifySignature(try PassArchive.files(fetched.body), root: app.certificates.rootCertificate)
    }

    @Test("a stored design with NFC loses it when the server is no longer set up for NFC", arguments: [Backend.sqlite])
    func nfcDroppedWithoutConfiguration(backend: Backend) throws {
        let key = try Self.readerKey()
        let directory = try TestCertificates.temporaryDirectory(prefix: "nfc-restart")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let databaseURL = try backend.freshDatabaseURL(in: directory)
        let certificates = try TestCertificates.make(in: directory)
        let first = try TestApp.start(backend, databaseURL: databaseURL, certificates: certificates) { $0.signing.nfcReaderKey = key }
        let event = try first.createEvent()
        let serial = try first.issueTicket(event: event)
        let saved = try first.admin("PUT", "/admin/v1/events/\(event)/design", json: #"{"details": {"nfc": {"message": "GATE-7"}}}"#)
        try #require(saved.status == 200, "\(saved.text)")
        let withNFC = try PassArchive.passJSON(try Phone(app: first).fetch(serial).body)
        #expect((withNFC["nfc"] as? [String: Any])?["message"] as? String == "GATE-7", "the pass had nfc while the server was set up for it")
        first.stop()

        let second = try TestApp.start(backend, databaseURL: databaseURL, certificates: certificates)
        defer { second.stop() }
        let fetched = try Phone(app: second).fetch(serial)
        try #require(fetched.status == 200, "\(fetched.text)")
        #expect(try PassArchive.passJSON(fetched.body)["nfc"] == nil, "a certificate without NFC must not sign a pass with nfc")
    }
}
