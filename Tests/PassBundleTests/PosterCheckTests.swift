import Foundation
import PassBundle
import PassServerTesting
import Testing

@Suite("Poster event ticket checker", .offCooperativePool)
struct PosterCheckTests {
    private static let artwork: Set<PassImageKind> = [.icon, .logo, .artwork]

    /// The checker's reasons for `details` over the default template.
    private func reasons(_ details: WalletEventDetails, images: Set<PassImageKind> = artwork, eventName: String = "Swift Night") throws -> [PosterCheck.Reason] {
        PosterCheck.reasons(details: details, template: try Fixture.template().passJSON, eventName: eventName, images: images)
    }

    @Test("complete generic, sports and live performance posters are accepted")
    func complete() throws {
        for kind in [WalletEventDetails.EventKind.generic, WalletEventFixture.game, WalletEventFixture.concert, .conference] {
            #expect(try reasons(WalletEventFixture.poster(kind)) == [], "\(kind.typeName)")
        }
        // A background image serves as well as artwork.
        #expect(try reasons(WalletEventFixture.poster(), images: [.icon, .background]) == [])
    }

    /// Each required tag, per event type, and the details without it.
    static let missingTags: [(kind: String, tag: String, field: String?)] = [
        ("generic", "eventName", nil),
        ("generic", "venueRegionName", "venueRegionName"),
        ("generic", "venueRoom", "venueRoom"),
        ("sports", "venueRoom", "venueRoom"),
        ("sports", "homeTeamAbbreviation", "kind.homeTeamAbbreviation"),
        ("sports", "awayTeamAbbreviation", "kind.awayTeamAbbreviation"),
        ("livePerformance", "venueRegionName", "venueRegionName"),
        ("livePerformance", "performerNames", "kind.performerNames"),
    ]

    @Test("each missing required tag per event type is refused with its name", arguments: missingTags)
    func missingTag(kind: String, tag: String, field: String?) throws {
        var eventName = "Swift Night"
        var details = WalletEventFixture.poster(kind == "sports" ? WalletEventFixture.game : kind == "livePerformance" ? WalletEventFixture.concert : .generic)
        switch tag {
        case "eventName": eventName = " "
        case "venueRegionName": details.venueRegionName = nil
        case "venueRoom": details.venueRoom = nil
        case "performerNames": details.kind = .livePerformance(performerNames: [])
        case "homeTeamAbbreviation", "awayTeamAbbreviation":
            guard case .sports(var sports) = details.kind else { throw CheckFailure.notSports }
            if tag == "homeTeamAbbreviation" { sports.homeTeamAbbreviation = nil } else { sports.awayTeamAbbreviation = nil }
            details.kind = .sports(sports)
        default: throw CheckFailure.unknownTag(tag)
        }
        let found = try reasons(details, eventName: eventName)
        #expect(found == [.missingSemantic(tag)])
        #expect(found.first?.tag == "semantics." + tag)
        #expect(found.first?.field == field)
        #expect(found.first?.message.contains(tag) == true)
    }

    @Test("a template without venueName is refused for it; the event's venue fills the default template's")
    func venueName() throws {
        var template = try Fixture.template().passJSON
        guard case .object(var root) = template, case .object(var semantics)? = root["semantics"] else { throw CheckFailure.templateShape }
        semantics["venueName"] = nil
        root["semantics"] = .object(semantics)
        template = .object(root)
        var details = WalletEventFixture.poster()
        details.venueName = nil
        #expect(PosterCheck.reasons(details: details, template: template, eventName: "Swift Night", images: Self.artwork) == [.missingSemantic("venueName")])
        #expect(try reasons(details) == [])
    }

    @Test("a sports event without any team tag is refused for both abbreviations, in Apple's order")
    func sportsWithoutTeams() throws {
        let found = try reasons(WalletEventFixture.poster(.sports(.init(homeTeamName: "Tokyo Swallows"))))
        #expect(found == [.missingSemantic("awayTeamAbbreviation"), .missingSemantic("homeTeamAbbreviation")])
    }

    @Test("a poster without NFC is refused, naming nfc")
    func withoutNFC() throws {
        var details = WalletEventFixture.poster(WalletEventFixture.game)
        details.nfc = nil
        let found = try reasons(details)
        #expect(found == [.missingNFC])
        #expect(found.first?.tag == "nfc")
        #expect(found.first?.message.contains("NFC") == true)
    }

    @Test("an nfc dictionary without its key or authentication flag is refused per key")
    func incompleteNFC() {
        let pass = JSONValue.object([
            "preferredStyleSchemes": .array([.string("posterEventTicket")]),
            "eventTicket": .object(["primaryFields": .array([.object(["key": .string("event"), "value": .string("E")])])]),
            "semantics": .object(["eventName": .string("E"), "venueName": .string("V"), "venueRegionName": .string("R"), "venueRoom": .string("1")]),
            "nfc": .object(["message": .string("T-1")]),
        ])
        #expect(PosterCheck.reasons(pass: pass, images: Self.artwork) == [.incompleteNFC("encryptionPublicKey"), .incompleteNFC("requiresAuthentication")])
    }

    @Test("a poster without artwork (or background) is refused")
    func withoutArtwork() throws {
        let found = try reasons(WalletEventFixture.poster(WalletEventFixture.concert), images: [.icon, .logo, .strip, .primaryLogo])
        #expect(found == [.missingArtwork])
        #expect(found.first?.tag == "artwork")
    }

    @Test("details without the poster opt-in, or a tree without classic fields, are no poster")
    func notAPoster() throws {
        var details = WalletEventFixture.poster()
        details.usePoster = false
        #expect(try reasons(details) == [.posterNotPreferred])
        #expect(try reasons(details).first?.field == "usePoster")

        let bare = JSONValue.object(["preferredStyleSchemes": .array([.string("posterEventTicket"), .string("eventTicket")])])
        #expect(PosterCheck.reasons(pass: bare, images: []) == [
            .missingClassicFields, .missingSemantic("eventName"), .missingSemantic("venueName"), .missingSemantic("venueRegionName"),
            .missingSemantic("venueRoom"), .missingArtwork, .missingNFC,
        ])
    }

    @Test("a rendered pass with details, checked against the template's images, is a poster")
    func renderedPass() throws {
        let template = try Fixture.template()
        #expect(template.imageKinds == [.icon, .logo, .strip])
        let ticket = Fixture.ticket()
        var tree = try template.render(try ticket.templateValues(passTypeIdentifier: "pass.com.example.event", teamIdentifier: "TEAM123456"))
        try WalletEventFixture.poster(WalletEventFixture.concert).apply(to: &tree, ticket: ticket)
        #expect(PosterCheck.reasons(pass: tree, images: template.imageKinds) == [.missingArtwork])
        #expect(PosterCheck.reasons(pass: tree, images: template.imageKinds.union([.artwork])) == [])
    }

    @Test("image kinds are read from bundle paths")
    func imageKinds() {
        #expect(PassImageKind(path: "artwork@3x.png") == .artwork)
        #expect(PassImageKind(path: "en.lproj/primaryLogo@2x.png") == .primaryLogo)
        #expect(PassImageKind(path: "pass.json") == nil)
        #expect(PassImageKind(path: "poster.png") == nil)
    }

    private enum CheckFailure: Error {
        case notSports
        case templateShape
        case unknownTag(String)
    }
}
