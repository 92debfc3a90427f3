import Foundation
import HTTPServer
import PassBundle
import PassImages

/// The design page's form (`DesignPage`) and a `PassDesign`, both ways: the values a stored design
/// fills in, and the design a submitted form asks for.
///
/// The inputs are named by the design's own paths (`backgroundColor`, `details.venueRoom`,
/// `details.guide.bagPolicyURL`), so the organizer's refusals land under their fields; lists are
/// numbered inputs (`details.featuredActions.0.url`) or one line each (`details.kind.performerNames`).
/// Each image is a file input `images.<kind>` and a checkbox `remove.<kind>`: no file keeps the
/// stored image. What the form does not show (a footer image) is kept as stored.
enum DesignForm {
    /// The images the form offers, by the layout that uses them.
    static let classicImages: [PassImageKind] = [.icon, .logo, .strip, .background, .thumbnail]
    static let posterImages: [PassImageKind] = [.artwork, .primaryLogo, .secondaryLogo]
    static var images: [PassImageKind] { classicImages + posterImages }

    static let sportsKeys = [
        "homeTeamName", "homeTeamAbbreviation", "homeTeamLocation", "awayTeamName", "awayTeamAbbreviation", "awayTeamLocation", "leagueName",
        "leagueAbbreviation", "sportName",
    ]
    static let guideKeys = [
        "accessibilityURL", "addOnURL", "bagPolicyURL", "contactVenueEmail", "contactVenuePhoneNumber", "contactVenueWebsite",
        "directionsInformationURL", "merchandiseURL", "orderFoodURL", "parkingInformationURL", "purchaseParkingURL", "sellURL", "transferURL",
        "transitInformationURL",
    ]
    /// Featured action rows (Wallet shows at most two).
    static let actionRows = 0..<WalletEventDetails.maxFeaturedActions

    /// What a submitted form asks for: the design, the files to check and store with it (by kind,
    /// in the form's order) and what could not be read at all (a latitude that is no number).
    struct Reading {
        var design: PassDesign
        var files: [(kind: PassImageKind, bytes: [UInt8])] = []
        /// How the uploaded files keep their colours (`imagesFullColor` ticked: in full colour).
        var colors: PassImageColors = .palette
        var issues: [OrganizerError.Issue] = []
    }

    // MARK: Stored design → form

    /// The form's values for `design` (colours as `#rrggbb`).
    static func values(of design: PassDesign) -> [String: String] {
        var values: [String: String] = [:]
        values["backgroundColor"] = design.backgroundColor.map(hex) ?? ""
        values["foregroundColor"] = design.foregroundColor.map(hex) ?? ""
        values["labelColor"] = design.labelColor.map(hex) ?? ""
        values["logoText"] = design.logoText ?? ""
        let details = design.details
        values["details.venueName"] = details.venueName ?? ""
        values["details.venueRegionName"] = details.venueRegionName ?? ""
        values["details.venueRoom"] = details.venueRoom ?? ""
        values["details.entranceDescription"] = details.entranceDescription ?? ""
        values["details.admissionLevel"] = details.admissionLevel ?? ""
        values["details.venueLocation.latitude"] = details.venueLocation.map { number($0.latitude) } ?? ""
        values["details.venueLocation.longitude"] = details.venueLocation.map { number($0.longitude) } ?? ""
        values["details.kind.type"] = details.kind.typeName
        switch details.kind {
        case .livePerformance(let names): values["details.kind.performerNames"] = names.joined(separator: "\n")
        case .sports(let sports):
            for (key, value) in sports.tags { values["details.kind." + key] = value ?? "" }
        default: break
        }
        for (key, value) in details.guide.entries { values["details.guide." + key] = value ?? "" }
        for (index, action) in details.featuredActions.enumerated() where actionRows.contains(index) {
            values["details.featuredActions.\(index).type"] = action.type.rawValue
            values["details.featuredActions.\(index).url"] = action.url
        }
        values["details.usePoster"] = details.usePoster ? "true" : ""
        values["details.eventLogoText"] = details.eventLogoText ?? ""
        values["details.nfc.message"] = details.nfc?.message ?? ""
        values["details.nfc.encryptionPublicKey"] = details.nfc?.encryptionPublicKey ?? ""
        values["details.nfc.requiresAuthentication"] = details.nfc?.requiresAuthentication == true ? "true" : ""
        return values
    }

    /// `rgb(r, g, b)` (or `#rrggbb`) as `#rrggbb`; the text itself when it is neither.
    static func hex(_ color: String) -> String {
        guard let normalized = PassDesign.color(color) else { return color }
        let parts = normalized.dropFirst(4).dropLast().split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3 else { return color }
        return "#" + parts.map { String(format: "%02x", $0) }.joined()
    }

    /// A coordinate as typed (no trailing `.0`).
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    // MARK: Form → design

    /// The design `form` asks for over `stored`.
    static func read(_ form: FormFields, over stored: PassDesign) -> Reading {
        var reading = Reading(design: stored)
        func text(_ name: String) -> String? {
            let value = AdminText.trimmed(form[name] ?? "")
            return value.isEmpty ? nil : value
        }
        func checked(_ name: String) -> Bool { form[name] == "true" }

        reading.design.backgroundColor = text("backgroundColor")
        reading.design.foregroundColor = text("foregroundColor")
        reading.design.labelColor = text("labelColor")
        reading.design.logoText = text("logoText")

        if checked("imagesFullColor") { reading.colors = .full }
        for kind in images {
            if let file = form.file("images." + kind.rawValue) {
                reading.files.append((kind, file.bytes))
            } else if checked("remove." + kind.rawValue) {
                reading.design.images[kind.rawValue] = nil
            }
        }

        var details = stored.details
        details.venueName = text("details.venueName")
        details.venueRegionName = text("details.venueRegionName")
        details.venueRoom = text("details.venueRoom")
        details.entranceDescription = text("details.entranceDescription")
        details.admissionLevel = text("details.admissionLevel")
        details.venueLocation = location(text("details.venueLocation.latitude"), text("details.venueLocation.longitude"), &reading.issues)
        details.kind = kind(form, text, &reading.issues)

        var guide = WalletEventDetails.EventGuide()
        guide.accessibilityURL = text("details.guide.accessibilityURL")
        guide.addOnURL = text("details.guide.addOnURL")
        guide.bagPolicyURL = text("details.guide.bagPolicyURL")
        guide.contactVenueEmail = text("details.guide.contactVenueEmail")
        guide.contactVenuePhoneNumber = text("details.guide.contactVenuePhoneNumber")
        guide.contactVenueWebsite = text("details.guide.contactVenueWebsite")
        guide.directionsInformationURL = text("details.guide.directionsInformationURL")
        guide.merchandiseURL = text("details.guide.merchandiseURL")
        guide.orderFoodURL = text("details.guide.orderFoodURL")
        guide.parkingInformationURL = text("details.guide.parkingInformationURL")
        guide.purchaseParkingURL = text("details.guide.purchaseParkingURL")
        guide.sellURL = text("details.guide.sellURL")
        guide.transferURL = text("details.guide.transferURL")
        guide.transitInformationURL = text("details.guide.transitInformationURL")
        details.guide = guide

        details.featuredActions = []
        for row in actionRows {
            let type = text("details.featuredActions.\(row).type")
            let url = text("details.featuredActions.\(row).url")
            switch (type, url) {
            case (nil, nil): continue
            case (let type?, let url?): details.featuredActions.append(.init(type: .init(rawValue: type), url: url))
            case (nil, _): reading.issues.append(.init("details.featuredActions.\(row).type", "choose what the action does, or clear its link"))
            case (_, nil): reading.issues.append(.init("details.featuredActions.\(row).url", "is required for the action"))
            }
        }

        details.usePoster = checked("details.usePoster")
        details.eventLogoText = text("details.eventLogoText")
        let key = text("details.nfc.encryptionPublicKey")
        let message = text("details.nfc.message")
        let authentication = checked("details.nfc.requiresAuthentication")
        if let key {
            details.nfc = .init(message: message, encryptionPublicKey: key, requiresAuthentication: authentication)
        } else {
            details.nfc = nil
            if message != nil || authentication {
                reading.issues.append(.init("details.nfc.encryptionPublicKey", "is required for NFC entry (or clear the NFC message)"))
            }
        }
        reading.design.details = details
        return reading
    }

    private static func location(_ latitude: String?, _ longitude: String?, _ issues: inout [OrganizerError.Issue]) -> WalletEventDetails.Location? {
        guard latitude != nil || longitude != nil else { return nil }
        func degrees(_ text: String?, _ field: String, other: String) -> Double? {
            guard let text else {
                issues.append(.init(field, "is required with the \(other)"))
                return nil
            }
            // Plain decimal degrees only: no "nan", "inf" or hexadecimal that Double(_:) would take.
            guard text.utf8.count <= 32, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x2E || $0 == 0x2B }),
                let value = Double(text)
            else {
                issues.append(.init(field, "must be a number of degrees (38.7071)"))
                return nil
            }
            return value
        }
        let lat = degrees(latitude, "details.venueLocation.latitude", other: "longitude")
        let long = degrees(longitude, "details.venueLocation.longitude", other: "latitude")
        guard let lat, let long else { return nil }
        return .init(latitude: lat, longitude: long)
    }

    private static func kind(_ form: FormFields, _ text: (String) -> String?, _ issues: inout [OrganizerError.Issue]) -> WalletEventDetails.EventKind {
        let name = text("details.kind.type") ?? "generic"
        guard let kind = WalletEventDetails.EventKind(typeName: name) else {
            issues.append(.init("details.kind.type", "must be one of \(WalletEventDetails.EventKind.typeNames.joined(separator: ", "))"))
            return .generic
        }
        switch kind {
        case .livePerformance:
            let names = (form["details.kind.performerNames"] ?? "").split(whereSeparator: \.isNewline).map { AdminText.trimmed(String($0)) }
            return .livePerformance(performerNames: names.filter { !$0.isEmpty })
        case .sports:
            return .sports(.init(
                homeTeamName: text("details.kind.homeTeamName"), homeTeamAbbreviation: text("details.kind.homeTeamAbbreviation"),
                homeTeamLocation: text("details.kind.homeTeamLocation"), awayTeamName: text("details.kind.awayTeamName"),
                awayTeamAbbreviation: text("details.kind.awayTeamAbbreviation"), awayTeamLocation: text("details.kind.awayTeamLocation"),
                leagueName: text("details.kind.leagueName"), leagueAbbreviation: text("details.kind.leagueAbbreviation"),
                sportName: text("details.kind.sportName")
            ))
        default:
            return kind
        }
    }

    // MARK: Refusals → fields

    /// A refusal's issue under the input that shows it: a performer's line under the list, an
    /// action's field under its numbered input, a rule about NFC as a whole under its key, an
    /// upload's problem under its file input (`image` of `kind`).
    static func formField(_ issue: OrganizerError.Issue, upload kind: PassImageKind? = nil) -> OrganizerError.Issue {
        let field = issue.field
        if let kind, field == "image" || field == "kind" { return .init("images." + kind.rawValue, issue.message) }
        if let match = field.wholeMatch(of: /details\.kind\.performerNames\[(\d+)\]/), let index = Int(match.1) {
            return .init("details.kind.performerNames", "line \(index + 1): \(issue.message)")
        }
        if let match = field.wholeMatch(of: /details\.featuredActions\[(\d+)\]\.(type|url)/) {
            return .init("details.featuredActions.\(match.1).\(match.2)", issue.message)
        }
        if field == "details.featuredActions" { return .init("details.featuredActions.0.type", issue.message) }
        if field == "details.nfc" { return .init("details.nfc.encryptionPublicKey", issue.message) }
        return issue
    }

    /// The names of every input the form shows (issues of other fields go above the form).
    static var shownFields: [String] {
        var names = ["backgroundColor", "foregroundColor", "labelColor", "logoText"]
        names += images.map { "images." + $0.rawValue } + ["imagesFullColor"]
        names += ["venueName", "venueRegionName", "venueRoom", "entranceDescription", "admissionLevel"].map { "details." + $0 }
        names += ["details.venueLocation.latitude", "details.venueLocation.longitude", "details.kind.type", "details.kind.performerNames"]
        names += sportsKeys.map { "details.kind." + $0 } + guideKeys.map { "details.guide." + $0 }
        names += actionRows.flatMap { ["details.featuredActions.\($0).type", "details.featuredActions.\($0).url"] }
        names += ["details.usePoster", "details.eventLogoText", "details.nfc.message", "details.nfc.encryptionPublicKey", "details.nfc.requiresAuthentication"]
        return names
    }

    /// What an upload for `kind` must be, in a sentence for the form.
    static func requirement(_ kind: PassImageKind) -> String {
        let shape = kind.shape
        let box = shape.box
        let minimum = shape.minimumUpload
        switch shape {
        case .exact:
            return "PNG or JPEG, \(box.width):\(box.height) (width:height), at least \(minimum.width) × \(minimum.height) pixels."
        case .fitting(_, let ratios):
            let range = ratios == nil ? "" : ", between 2:3 (tall) and 3:2 (wide)"
            return "PNG or JPEG, at least \(minimum.width) pixels wide or \(minimum.height) high\(range); shown within \(box.width) × \(box.height) points."
        }
    }
}
