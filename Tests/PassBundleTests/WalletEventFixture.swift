import Foundation
import PassBundle
import Testing

/// Event details shared by the Wallet details and poster tests.
enum WalletEventFixture {
    /// The public half of a throwaway P-256 key (SubjectPublicKeyInfo, uncompressed point, Base64).
    static let readerKey = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE+u538mJWwdziMV9epGAL+T27pVkwdE1251UDy10Ss2Eqozv+31EWR17f6W8MYQdlULSRckny2AtdR/vFt43d5Q=="

    /// The venue of the fixtures: Tokyo International Forum.
    static let forum = WalletEventDetails.Location(latitude: 35.6768, longitude: 139.7638)

    /// Details with everything a poster needs, of the given kind.
    static func poster(_ kind: WalletEventDetails.EventKind = .generic) -> WalletEventDetails {
        WalletEventDetails(
            venueName: "Tokyo International Forum",
            venueRegionName: "Tokyo",
            venueRoom: "Hall A",
            venueLocation: forum,
            entranceDescription: "Enter through the glass hall, gate 3.",
            admissionLevel: "Floor",
            kind: kind,
            guide: .init(bagPolicyURL: "https://example.com/bags", directionsInformationURL: "https://example.com/directions"),
            nfc: .init(encryptionPublicKey: readerKey, requiresAuthentication: true),
            usePoster: true,
            eventLogoText: "Swift Night"
        )
    }

    /// A complete sports kind.
    static let game = WalletEventDetails.EventKind.sports(.init(
        homeTeamName: "Tokyo Swallows", homeTeamAbbreviation: "TYS",
        awayTeamName: "Osaka Tigers", awayTeamAbbreviation: "OST",
        leagueName: "Central League", sportName: "Baseball"
    ))

    /// A complete live performance kind.
    static let concert = WalletEventDetails.EventKind.livePerformance(performerNames: ["The Closures", "Async Let"])

    /// A point in time from its ISO 8601 text (the tests' way to write dates readably).
    static func date(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text), "not an ISO 8601 date: \(text)", sourceLocation: sourceLocation)
    }
}
