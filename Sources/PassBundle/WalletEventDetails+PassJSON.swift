public import Foundation
import SystemSupport

extension WalletEventDetails {
    /// The `preferredStyleSchemes` of a poster: the poster first, the classic ticket as fallback.
    public static let posterStyleSchemes = ["posterEventTicket", "eventTicket"]

    /// Writes these details into a rendered pass.json tree (a JSON object; anything else is left alone).
    ///
    /// - `semantics` is merged: `eventName`, `eventStartDate`, `eventEndDate` (when there is an
    ///   end) and `eventType` always, the venue, admission and type tags when set; every other tag
    ///   the template wrote stays.
    /// - `relevantDate` (the start, for phones before `relevantDates`), `relevantDates`, and with a
    ///   venue location `locations` and `maxDistance`. A voided pass gets none of them, and loses
    ///   the template's: a cancelled ticket no longer asks for attention.
    /// - The event guide's keys that are set, `featuredActions` when there are any, `nfc` when configured.
    /// - `preferredStyleSchemes` and `eventLogoText` with the poster; without it
    ///   `preferredStyleSchemes` is removed, since the poster is the event's choice.
    /// The style dictionary (`eventTicket`) and its fields are never touched, so phones without the
    /// poster show the classic ticket. Dates are ISO 8601 with the offset of `timeZone`.
    public func apply(to pass: inout JSONValue, eventName: String, startsAt: Date, endsAt: Date?, timeZone: TimeZone) {
        guard case .object(var root) = pass else { return }
        let iso = { (date: Date) in JSONValue.string(ISO8601Zoned.format(date, in: timeZone)) }
        // The start and end are written up to three times each (semantics, relevantDate, the
        // first and last relevant interval): formatted once.
        let start = iso(startsAt)
        let end = endsAt.map(iso)
        let formatted = { (date: Date) -> JSONValue in
            if date == startsAt { return start }
            if date == endsAt, let end { return end }
            return iso(date)
        }

        var semantics: [String: JSONValue] = [:]
        if case .object(let existing)? = root["semantics"] { semantics = existing }
        semantics["eventName"] = .string(eventName)
        semantics["eventStartDate"] = start
        if let end { semantics["eventEndDate"] = end }
        semantics["eventType"] = .string(kind.eventType)
        for (key, value) in [("venueName", venueName), ("venueRegionName", venueRegionName), ("venueRoom", venueRoom),
                             ("entranceDescription", entranceDescription), ("admissionLevel", admissionLevel)] {
            if let value { semantics[key] = .string(value) }
        }
        if let venueLocation { semantics["venueLocation"] = venueLocation.json }
        switch kind {
        case .livePerformance(let performerNames) where !performerNames.isEmpty:
            semantics["performerNames"] = .array(performerNames.map(JSONValue.string))
        case .sports(let sports):
            for (key, value) in sports.tags { if let value { semantics[key] = .string(value) } }
        default: break
        }
        root["semantics"] = .object(semantics)

        if root["voided"] == .bool(true) {
            for key in ["relevantDate", "relevantDates", "locations", "maxDistance"] { root[key] = nil }
        } else {
            root["relevantDate"] = start
            root["relevantDates"] = .array(Self.relevantIntervals(startsAt: startsAt, endsAt: endsAt, timeZone: timeZone).map { interval in
                .object(["startDate": formatted(interval.start), "endDate": formatted(interval.end)])
            })
            if let venueLocation {
                root["locations"] = .array([venueLocation.json])
                root["maxDistance"] = .number(Double(Self.locationMaxDistance))
            }
        }

        for (key, value) in guide.entries { if let value { root[key] = .string(value) } }
        if !featuredActions.isEmpty {
            root["featuredActions"] = .array(featuredActions.enumerated().map { index, action in
                .object(["identifier": .string("featured-\(index + 1)"), "type": .string(action.type.rawValue), "url": .string(action.url)])
            })
        }
        if let nfc, let key = nfc.encryptionPublicKey, let message = nfc.message ?? Self.passCode(root) {
            root["nfc"] = .object([
                "message": .string(message),
                "encryptionPublicKey": .string(key),
                "requiresAuthentication": .bool(nfc.requiresAuthentication),
            ])
        }
        if usePoster {
            root["preferredStyleSchemes"] = .array(Self.posterStyleSchemes.map(JSONValue.string))
            if let eventLogoText { root["eventLogoText"] = .string(eventLogoText) }
        } else {
            root["preferredStyleSchemes"] = nil
        }
        pass = .object(root)
    }

    /// These details for a pass type whose certificate is enabled for NFC with readers holding
    /// the private half of `readerKey`, or one not enabled for NFC (`readerKey` nil): then `nfc`
    /// is dropped, since Wallet refuses a pass with `nfc` signed by any other certificate. An
    /// `nfc` without its own key takes `readerKey`.
    public func withNFC(readerKey: String?) -> WalletEventDetails {
        var details = self
        guard let readerKey else {
            details.nfc = nil
            return details
        }
        if details.nfc != nil, details.nfc?.encryptionPublicKey == nil { details.nfc?.encryptionPublicKey = readerKey }
        return details
    }

    /// What a pass's NFC sends by default: its first barcode's message, or its serial number.
    private static func passCode(_ root: [String: JSONValue]) -> String? {
        if case .array(let barcodes)? = root["barcodes"], case .object(let first)? = barcodes.first,
           case .string(let message)? = first["message"], !message.isEmpty {
            return message
        }
        if case .string(let serial)? = root["serialNumber"], !serial.isEmpty { return serial }
        return nil
    }
}

extension WalletEventDetails.Location {
    /// `{"latitude": …, "longitude": …}`, the shape of both `semantics.venueLocation` and a `locations` entry.
    var json: JSONValue { .object(["latitude": .number(latitude), "longitude": .number(longitude)]) }
}
