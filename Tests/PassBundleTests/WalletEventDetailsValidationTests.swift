import Foundation
import PassBundle
import PassServerTesting
import Testing

@Suite("Wallet event details validation", .offCooperativePool)
struct WalletEventDetailsValidationTests {
    private func fields(_ details: WalletEventDetails) -> [String] { details.validate().map(\.field) }

    @Test("complete details of every kind are valid")
    func completeDetailsPass() {
        for kind in [WalletEventFixture.game, WalletEventFixture.concert, .generic, .conference, .socialGathering] {
            #expect(WalletEventFixture.poster(kind).validate() == [], "\(kind.typeName)")
        }
        #expect(WalletEventDetails().validate() == [])
    }

    @Test("guide URLs must be absolute https URLs", arguments: [
        ("http://example.com/bags", "must use https, found http:"),
        ("javascript:alert(1)", "must use https, found javascript:"),
        ("JavaScript://example.com/%0Aalert(1)", "must use https, found JavaScript:"),
        ("data:text/html,<b>hi</b>", "must use https, found data:"),
        ("example.com/bags", "is not an absolute URL"),
        ("https:///bags", "has no host"),
        ("https://user:secret@example.com/", "must not carry a user name or password"),
        ("https://example.com/a b", "must not contain spaces or control characters"),
        ("https://example.com/\u{0}", "must not contain spaces or control characters"),
    ])
    func badGuideURL(url: String, message: String) {
        var details = WalletEventDetails()
        details.guide.bagPolicyURL = url
        #expect(details.validate() == [.init(field: "guide.bagPolicyURL", message: message)])
    }

    @Test("every guide link is checked, and an overlong URL is refused")
    func everyLinkChecked() {
        let long = "https://example.com/" + String(repeating: "a", count: WalletEventDetails.maxURLLength)
        let guide = WalletEventDetails.EventGuide(
            accessibilityURL: "http://a.example", addOnURL: "http://a.example", bagPolicyURL: "http://a.example",
            contactVenueWebsite: "http://a.example", directionsInformationURL: "http://a.example", merchandiseURL: "http://a.example",
            orderFoodURL: "http://a.example", parkingInformationURL: "http://a.example", purchaseParkingURL: "http://a.example",
            sellURL: "http://a.example", transferURL: "http://a.example", transitInformationURL: long
        )
        let issues = WalletEventDetails(guide: guide).validate()
        #expect(issues.count == 12)
        #expect(issues.last == .init(field: "guide.transitInformationURL", message: "must be at most 2048 bytes"))
        #expect(Set(issues.map(\.field)).count == 12)
    }

    @Test("venue contact email and phone number have their shapes", arguments: [
        ("contactVenueEmail", "box-office@example.com", true),
        ("contactVenueEmail", "box office@example.com", false),
        ("contactVenueEmail", "@example.com", false),
        ("contactVenueEmail", "box-office@localhost", false),
        ("contactVenueEmail", "a@b@example.com", false),
        ("contactVenuePhoneNumber", "+81 3-5221-9000", true),
        ("contactVenuePhoneNumber", "(030) 1234/567", true),
        ("contactVenuePhoneNumber", "call us", false),
        ("contactVenuePhoneNumber", "12", false),
        ("contactVenuePhoneNumber", "+81+3", false),
        ("contactVenuePhoneNumber", "tel:+81352219000", false),
    ])
    func contacts(key: String, value: String, valid: Bool) {
        var details = WalletEventDetails()
        if key == "contactVenueEmail" { details.guide.contactVenueEmail = value } else { details.guide.contactVenuePhoneNumber = value }
        #expect(fields(details) == (valid ? [] : ["guide." + key]))
    }

    @Test("latitude and longitude must be on Earth", arguments: [
        (91.0, 0.0, ["venueLocation.latitude"]),
        (-90.5, 0.0, ["venueLocation.latitude"]),
        (0.0, 180.5, ["venueLocation.longitude"]),
        (Double.nan, -181.0, ["venueLocation.latitude", "venueLocation.longitude"]),
        (90.0, -180.0, []),
    ])
    func coordinates(latitude: Double, longitude: Double, expected: [String]) {
        let details = WalletEventDetails(venueLocation: .init(latitude: latitude, longitude: longitude))
        #expect(fields(details) == expected)
    }

    @Test("at most two featured actions, of event ticket types, with https URLs")
    func featuredActions() {
        let schedule = WalletEventDetails.FeaturedAction(type: .viewSchedule, url: "https://example.com/schedule")
        var details = WalletEventDetails(featuredActions: [schedule, .init(type: .listenToMusic, url: "https://example.com/playlist")])
        #expect(details.validate() == [])

        details.featuredActions.append(.init(type: .watchTrailer, url: "https://example.com/trailer"))
        #expect(details.validate() == [.init(field: "featuredActions", message: "must hold at most 2 actions, found 3")])

        details.featuredActions = [.init(type: .init(rawValue: "bookFlight"), url: "http://example.com/")]
        let issues = details.validate()
        #expect(issues.map(\.field) == ["featuredActions[0].type", "featuredActions[0].url"])
        #expect(issues.first?.message.contains("\"bookFlight\" is not a featured action of event tickets") == true)
    }

    @Test("texts must not be blank, overlong or hold control characters")
    func texts() {
        let details = WalletEventDetails(
            venueName: "  ",
            venueRegionName: String(repeating: "x", count: 201),
            venueRoom: "Hall\u{7}A",
            kind: .livePerformance(performerNames: ["Fine", "", "Bad\u{85}"]),
            eventLogoText: "Swift Night\n"
        )
        #expect(details.validate() == [
            .init(field: "venueName", message: "must not be empty (leave it out instead)"),
            .init(field: "venueRegionName", message: "must be at most 200 characters (Unicode scalars)"),
            .init(field: "venueRoom", message: "must not contain control characters"),
            .init(field: "eventLogoText", message: "must not contain control characters"),
            .init(field: "kind.performerNames[1]", message: "must not be empty (leave it out instead)"),
            .init(field: "kind.performerNames[2]", message: "must not contain control characters"),
        ])
        let teams = WalletEventDetails(kind: .sports(.init(homeTeamAbbreviation: "TOOLONGABBRV", awayTeamName: "")))
        #expect(fields(teams) == ["kind.homeTeamAbbreviation", "kind.awayTeamName"])
    }

    @Test("the NFC key must be a P-256 public key and the message at most 64 bytes")
    func nfc() throws {
        var details = WalletEventDetails(nfc: .init(message: String(repeating: "é", count: 33), encryptionPublicKey: "bm90IGEga2V5"))
        #expect(details.validate() == [
            .init(field: "nfc.message", message: "must be at most 64 bytes in UTF-8, found 66"),
            .init(field: "nfc.encryptionPublicKey", message: "must be the Base64 of an X.509 SubjectPublicKeyInfo holding a P-256 public key"),
        ])
        details.nfc = .init(message: "T-0001", encryptionPublicKey: WalletEventFixture.readerKey)
        #expect(details.validate() == [])
        details.nfc?.encryptionPublicKey = "not base64!"
        #expect(fields(details) == ["nfc.encryptionPublicKey"])
    }

    @Test("keys made by openssl pass, compressed or not; an RSA or P-384 key does not")
    func opensslKeys() throws {
        let directory = try Fixture.directory("nfc-key")
        func publicKey(_ generate: [String], compressed: Bool = false) throws -> String {
            let key = directory + "/key-\(UUID().uuidString).pem"
            #expect(try run("openssl", generate + ["-out", key]).status == 0)
            let der = key + ".der"
            // `openssl ec` writes a compressed point on request; `pkey` reads keys of any algorithm.
            let export = compressed ? ["ec", "-conv_form", "compressed"] : ["pkey"]
            let result = try run("openssl", export + ["-in", key, "-pubout", "-outform", "DER", "-out", der])
            #expect(result.status == 0, "\(result.error)")
            return try Data(contentsOf: URL(fileURLWithPath: der)).base64EncodedString()
        }
        let p256 = ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]
        let valid = [try publicKey(p256), try publicKey(p256, compressed: true)]
        let invalid = [try publicKey(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]),
                       try publicKey(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])]
        for key in valid { #expect(WalletEventDetails(nfc: .init(encryptionPublicKey: key)).validate() == []) }
        for key in invalid { #expect(fields(WalletEventDetails(nfc: .init(encryptionPublicKey: key))) == ["nfc.encryptionPublicKey"]) }
    }

    @Test("the Codable form is flat, Apple's names, and decodes with defaults")
    func codable() throws {
        let details = WalletEventFixture.poster(WalletEventFixture.game)
        let bytes = try JSONEncoder().encode(details)
        #expect(try JSONDecoder().decode(WalletEventDetails.self, from: bytes) == details)
        let object = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        let kind = try #require(object["kind"] as? [String: Any])
        #expect(kind["type"] as? String == "sports")
        #expect(kind["homeTeamAbbreviation"] as? String == "TYS")
        #expect((object["guide"] as? [String: Any])?["bagPolicyURL"] as? String == "https://example.com/bags")

        let minimal = try JSONDecoder().decode(WalletEventDetails.self, from: Data(#"{"kind": {"type": "livePerformance", "performerNames": ["A"]}}"#.utf8))
        #expect(minimal == WalletEventDetails(kind: .livePerformance(performerNames: ["A"])))
        #expect(try JSONDecoder().decode(WalletEventDetails.self, from: Data("{}".utf8)) == WalletEventDetails())
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(WalletEventDetails.self, from: Data(#"{"kind": {"type": "opera"}}"#.utf8))
        }
        let unknownAction = #"{"featuredActions": [{"type": "bookStay", "url": "https://example.com/"}]}"#
        #expect(try JSONDecoder().decode(WalletEventDetails.self, from: Data(unknownAction.utf8)).validate().map(\.field) == ["featuredActions[0].type"])
    }
}
