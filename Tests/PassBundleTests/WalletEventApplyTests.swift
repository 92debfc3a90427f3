import Foundation
import PassBundle
import PassServerTesting
import Testing

@Suite("Wallet event details in pass.json", .offCooperativePool)
struct WalletEventApplyTests {
    /// The default template rendered for `ticket`, with `details` applied, as Foundation objects.
    private func apply(_ details: WalletEventDetails, ticket: TicketData = Fixture.ticket(), sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let values = try ticket.templateValues(passTypeIdentifier: "pass.com.example.event", teamIdentifier: "TEAM123456")
        var tree = try Fixture.template().render(values)
        try details.apply(to: &tree, ticket: ticket)
        return try #require(try JSONSerialization.jsonObject(with: Data(tree.serialized)) as? [String: Any], sourceLocation: sourceLocation)
    }

    @Test("semantics are merged: the details' tags are added, the template's seats and attendee stay")
    func semantics() throws {
        let pass = try apply(WalletEventFixture.poster(WalletEventFixture.game))
        let semantics = try #require(pass["semantics"] as? [String: Any])
        #expect(semantics["eventName"] as? String == "Swift Night")
        #expect(semantics["venueName"] as? String == "Tokyo International Forum")
        #expect(semantics["venueRegionName"] as? String == "Tokyo")
        #expect(semantics["venueRoom"] as? String == "Hall A")
        #expect(semantics["entranceDescription"] as? String == "Enter through the glass hall, gate 3.")
        #expect(semantics["admissionLevel"] as? String == "Floor")
        #expect(semantics["eventType"] as? String == "PKEventTypeSports")
        #expect(semantics["homeTeamAbbreviation"] as? String == "TYS")
        #expect(semantics["awayTeamAbbreviation"] as? String == "OST")
        #expect(semantics["leagueName"] as? String == "Central League")
        #expect(semantics["homeTeamLocation"] == nil)
        let location = try #require(semantics["venueLocation"] as? [String: Double])
        #expect(location == ["latitude": 35.6768, "longitude": 139.7638])
        // 1_780_000_000 = 2026-05-29T05:26:40+09:00, the fixture's end three hours later.
        #expect(semantics["eventStartDate"] as? String == "2026-05-29T05:26:40+09:00")
        #expect(semantics["eventEndDate"] as? String == "2026-05-29T08:26:40+09:00")
        // From the template, untouched.
        #expect(semantics["attendeeName"] as? String == "Ada Lovelace")
        #expect((semantics["seats"] as? [[String: String]])?.first?["seatIdentifier"] == "B-7")
        #expect(semantics["silenceRequested"] as? Bool == false)

        let concert = try #require(try apply(WalletEventFixture.poster(WalletEventFixture.concert))["semantics"] as? [String: Any])
        #expect(concert["eventType"] as? String == "PKEventTypeLivePerformance")
        #expect(concert["performerNames"] as? [String] == ["The Closures", "Async Let"])
    }

    @Test("without venue details the template's venueName stays and only the event's own tags are written")
    func bareDetails() throws {
        let pass = try apply(WalletEventDetails(kind: .conference))
        let semantics = try #require(pass["semantics"] as? [String: Any])
        #expect(semantics["venueName"] as? String == "Hall 1, Tokyo")
        #expect(semantics["eventType"] as? String == "PKEventTypeConference")
        for key in ["venueRegionName", "venueRoom", "venueLocation", "performerNames", "homeTeamAbbreviation"] { #expect(semantics[key] == nil, "\(key)") }
        for key in ["locations", "maxDistance", "nfc", "featuredActions", "preferredStyleSchemes", "eventLogoText", "bagPolicyURL"] {
            #expect(pass[key] == nil, "\(key)")
        }
        #expect(pass["relevantDate"] as? String == "2026-05-29T05:26:40+09:00")
        #expect((pass["relevantDates"] as? [[String: String]])?.count == 1)
    }

    @Test("relevantDates, the legacy relevantDate and locations with maxDistance")
    func relevance() throws {
        let pass = try apply(WalletEventFixture.poster())
        #expect(pass["relevantDate"] as? String == "2026-05-29T05:26:40+09:00")
        #expect(pass["relevantDates"] as? [[String: String]] == [["startDate": "2026-05-29T02:26:40+09:00", "endDate": "2026-05-29T08:26:40+09:00"]])
        #expect(pass["locations"] as? [[String: Double]] == [["latitude": 35.6768, "longitude": 139.7638]])
        #expect(pass["maxDistance"] as? Int == 500)

        var multiDay = Fixture.ticket()
        multiDay.endsAt = multiDay.startsAt.addingTimeInterval(2 * 86_400)
        let days = try #require(try apply(WalletEventFixture.poster(), ticket: multiDay)["relevantDates"] as? [[String: String]])
        #expect(days.map { $0["startDate"] } == ["2026-05-29T02:26:40+09:00", "2026-05-30T00:00:00+09:00", "2026-05-31T00:00:00+09:00"])
    }

    @Test("a voided pass asks for no attention: no relevant dates, no locations")
    func voided() throws {
        let pass = try apply(WalletEventFixture.poster(), ticket: Fixture.ticket(cancelled: true))
        #expect(pass["voided"] as? Bool == true)
        for key in ["relevantDate", "relevantDates", "locations", "maxDistance"] { #expect(pass[key] == nil, "\(key)") }
        #expect((pass["semantics"] as? [String: Any])?["venueRoom"] as? String == "Hall A")
    }

    @Test("guide links and featured actions are top-level keys")
    func guideAndActions() throws {
        var details = WalletEventFixture.poster()
        details.guide.orderFoodURL = "https://example.com/food"
        details.guide.contactVenueEmail = "box-office@example.com"
        details.guide.contactVenuePhoneNumber = "+81 3-5221-9000"
        details.featuredActions = [.init(type: .viewSchedule, url: "https://example.com/schedule"), .init(type: .listenToMusic, url: "https://example.com/music")]
        let pass = try apply(details)
        #expect(pass["bagPolicyURL"] as? String == "https://example.com/bags")
        #expect(pass["directionsInformationURL"] as? String == "https://example.com/directions")
        #expect(pass["orderFoodURL"] as? String == "https://example.com/food")
        #expect(pass["contactVenueEmail"] as? String == "box-office@example.com")
        #expect(pass["contactVenuePhoneNumber"] as? String == "+81 3-5221-9000")
        #expect(pass["merchandiseURL"] == nil)
        #expect(pass["featuredActions"] as? [[String: String]] == [
            ["identifier": "featured-1", "type": "viewSchedule", "url": "https://example.com/schedule"],
            ["identifier": "featured-2", "type": "listenToMusic", "url": "https://example.com/music"],
        ])
    }

    @Test("the poster adds preferredStyleSchemes and eventLogoText and keeps the classic fields; nfc carries the pass's code")
    func poster() throws {
        let ticket = Fixture.ticket()
        let pass = try apply(WalletEventFixture.poster(), ticket: ticket)
        #expect(pass["preferredStyleSchemes"] as? [String] == ["posterEventTicket", "eventTicket"])
        #expect(pass["eventLogoText"] as? String == "Swift Night")
        #expect(pass["logoText"] as? String == "Example Events")
        let style = try #require(pass["eventTicket"] as? [String: Any])
        #expect(style.keys.sorted() == ["auxiliaryFields", "backFields", "headerFields", "primaryFields", "secondaryFields"])
        #expect((style["primaryFields"] as? [[String: Any]])?.first?["value"] as? String == "Swift Night")
        let nfc = try #require(pass["nfc"] as? [String: Any])
        #expect(nfc["message"] as? String == ticket.serialNumber)
        #expect(nfc["encryptionPublicKey"] as? String == WalletEventFixture.readerKey)
        #expect(nfc["requiresAuthentication"] as? Bool == true)

        var fixed = WalletEventFixture.poster()
        fixed.nfc?.message = "EVENT-42"
        fixed.usePoster = false
        let classic = try apply(fixed)
        #expect((classic["nfc"] as? [String: Any])?["message"] as? String == "EVENT-42")
        #expect(classic["preferredStyleSchemes"] == nil)
        #expect(classic["eventLogoText"] == nil)
    }

    @Test("turning the poster off removes a template's preferredStyleSchemes")
    func posterOff() throws {
        var tree = JSONValue.object(["preferredStyleSchemes": .array([.string("posterEventTicket"), .string("eventTicket")]), "serialNumber": .string("S")])
        WalletEventDetails().apply(to: &tree, eventName: "E", startsAt: Date(timeIntervalSince1970: 0), endsAt: nil, timeZone: .gmt)
        guard case .object(let root) = tree else {
            Issue.record("not an object")
            return
        }
        #expect(root["preferredStyleSchemes"] == nil)
        #expect(root["relevantDate"] == .string("1970-01-01T00:00:00Z"))
    }

    @Test("a signed bundle with details validates and carries them")
    func bundle() throws {
        let certificates = try Fixture.certificates()
        let signer = try PassSigner(identity: certificates.identity)
        let details = WalletEventFixture.poster(WalletEventFixture.concert)
        let bytes = try PassBundle.build(template: Fixture.template(), data: Fixture.ticket(), design: PassDesign(details: details), signer: signer)
        let unpacked = try UnpackedBundle(bytes)
        #expect(try unpacked.verifies(root: certificates.rootCertificate))
        let pass = try unpacked.passJSON()
        #expect(pass["preferredStyleSchemes"] as? [String] == ["posterEventTicket", "eventTicket"])
        #expect((pass["semantics"] as? [String: Any])?["performerNames"] as? [String] == ["The Closures", "Async Let"])
        #expect(pass["locations"] != nil)

        let definition = try PassBundle.renderPassDefinition(template: Fixture.template(), data: Fixture.ticket(), design: PassDesign(details: details), signer: signer)
        #expect(definition.semantics?.venueName == "Tokyo International Forum")
        #expect(throws: PassBundleError.self) {
            var ticket = Fixture.ticket()
            ticket.timeZone = "Mars/Olympus"
            _ = try PassBundle.renderPassJSON(template: Fixture.template(), data: ticket, design: PassDesign(details: details), signer: signer)
        }
    }
}
