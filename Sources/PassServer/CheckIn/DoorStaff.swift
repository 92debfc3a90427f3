import Certificates
import Foundation
import HTTPServer
import Storage

/// Door staff signed in from the dashboard: an admin gives a volunteer "scanner access" to one
/// event, with a name ("North gate – Sam") and an expiry, and shows them its sign-in link (a QR
/// code, or the short link typed in). A phone that opens the link is signed into that event's
/// scanner page, and nothing else: its scans of another event's tickets are refused, and every
/// other dashboard page and every admin API route answers 403.
///
/// The link is reusable until the access expires or is revoked, so one QR code at the gate signs
/// in the whole team there; the organizer sees each signed-in phone (when it signed in, when it
/// was last seen) and revokes the access to end them all at once. A phone's session ends when its
/// access does. Codes are 60 random bits (`XXXX-XXXX-XXXX`, Crockford's base32), stored only as
/// their SHA-256, and links are looked up under a rate limit per client (`DashboardController`).
struct DoorStaff: Sendable {
    let store: any Store
    var now: @Sendable () -> Date = Date.init
    /// Until when the event's tickets check in: the default expiry is the door's closing.
    var hours = DoorHours()

    /// Most phones signed in through one access; signing in once more ends the oldest.
    static let maxSessionsPerAccess = 20
    /// Most usable accesses one event has at once.
    static let maxUsablePerEvent = 100
    /// The latest expiry an access may have, from now (a later one is taken as this).
    static let maxLifetime: TimeInterval = 14 * 86_400
    /// Characters of a code without its dashes: 12 × 5 = 60 bits.
    static let codeLength = 12
    /// Longest name of an access.
    static let maxNameLength = 80
    /// How often a session's `last_seen_at` is written at most.
    static let seenInterval: TimeInterval = 60

    /// A new access and its link's code (shown once; only its hash is kept).
    struct Created: Sendable {
        var access: ScannerAccess
        var code: String
    }

    /// An access with its signed-in phones.
    struct Listed: Sendable {
        var access: ScannerAccess
        var sessions: [ScannerSession]
    }

    /// What a link's code opens.
    enum Lookup: Sendable, Equatable {
        /// A usable access, and its event.
        case usable(ScannerAccess, Event)
        case revoked(ScannerAccess)
        case expired(ScannerAccess)
        /// No access has this code (or it is not a code at all).
        case unknown
    }

    /// Creates an access to `event`'s scanner page for `name`, until `expiresAt` (default: when the
    /// door closes, `DoorHours`; at most `maxLifetime` from now, a later one is taken as that);
    /// `createdBy` is the admin token's name.
    func create(event: Event, name rawName: String?, expiresAt: Date?, createdBy: String) throws -> Created {
        let time = now()
        var issues: [OrganizerError.Issue] = []
        let name = (rawName ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if name.isEmpty { issues.append(.init("name", "is required")) }
        if name.count > Self.maxNameLength { issues.append(.init("name", "must be at most \(Self.maxNameLength) characters")) }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            issues.append(.init("name", "must not contain control characters"))
        }
        // A later expiry is taken as the latest there may be: the answer says which was taken.
        let expiry = min(expiresAt ?? defaultExpiry(for: event, at: time), time.addingTimeInterval(Self.maxLifetime))
        if let expiresAt, expiresAt <= time { issues.append(.init("expiresAt", "must be in the future")) }
        guard issues.isEmpty else { throw OrganizerError.invalid(issues) }
        // No door staff for a door that is closed: its tickets are refused anyway.
        switch hours.closed(event, at: time) {
        case .archived?: throw OrganizerError.conflict(code: "event_archived", message: "This event is archived: its tickets no longer check in.")
        case .ended?: throw OrganizerError.conflict(code: "event_ended", message: "This event is over: its tickets no longer check in.")
        case nil: break
        }
        let code = Self.newCode()
        let access = try store.withSession(.write) { session -> ScannerAccess? in
            guard try session.scanners.usableScannerAccessCount(eventID: event.id, now: time) < Self.maxUsablePerEvent else { return nil }
            return try session.scanners.createScannerAccess(
                eventID: event.id, name: name, codeHash: TokenVault.hash(code), createdBy: createdBy, now: time, expiresAt: expiry
            )
        }
        guard let access else {
            throw OrganizerError.conflict(
                code: "too_many_scanner_accesses", message: "This event has \(Self.maxUsablePerEvent) scanner accesses in use; revoke some first."
            )
        }
        return Created(access: access, code: code)
    }

    /// The expiry of an access to `event` made now without one: when the door closes (the event's
    /// end and the grace, `DoorHours`), or `maxLifetime` from now if that is sooner.
    func defaultExpiry(for event: Event, at time: Date? = nil) -> Date {
        let closes = DoorHours.end(startsAt: event.startsAt, endsAt: event.endsAt).addingTimeInterval(hours.grace)
        return min(closes, (time ?? now()).addingTimeInterval(Self.maxLifetime))
    }

    /// The accesses of `event`, newest first, each with its signed-in phones (two queries for all).
    func list(event: Event) throws -> [Listed] {
        let time = now()
        let (accesses, sessions) = try store.withSession(.read) { session in
            (try session.scanners.scannerAccesses(eventID: event.id), try session.scanners.scannerSessions(eventID: event.id, now: time))
        }
        let byAccess = Dictionary(grouping: sessions, by: \.access.id)
        return accesses.map { Listed(access: $0, sessions: byAccess[$0.id] ?? []) }
    }

    /// Revokes the access `id` of `event` and ends its sessions; 404 when the event has no such access.
    /// Revoking one already revoked changes nothing. The access after.
    func revoke(event: Event, id text: String?) throws -> ScannerAccess {
        guard let id = text.flatMap({ Int64($0) }), id > 0 else { throw OrganizerError.notFound("No such scanner access.") }
        let time = now()
        let access = try store.withSession(.write) { session -> ScannerAccess? in
            try session.scanners.revokeScannerAccess(id: id, eventID: event.id, now: time)
            return try session.scanners.scannerAccesses(eventID: event.id).first { $0.id == id }
        }
        guard let access else { throw OrganizerError.notFound("No such scanner access.") }
        return access
    }

    /// What the link's code `text` opens.
    func lookup(code text: String) throws -> Lookup {
        guard let code = Self.normalized(text) else { return .unknown }
        let time = now()
        return try store.withSession(.read) { session in
            guard let access = try session.scanners.scannerAccess(codeHash: TokenVault.hash(code)) else { return .unknown }
            if access.revokedAt != nil { return .revoked(access) }
            guard access.expiresAt > time else { return .expired(access) }
            guard let event = try session.events.event(id: access.eventID) else { return .unknown }
            return .usable(access, event)
        }
    }

    // MARK: Codes

    /// A new random code, `XXXX-XXXX-XXXX`.
    static func newCode() -> String {
        let bytes = SecureRandom.bytes(8)
        var value: UInt64 = 0
        for byte in bytes { value = value << 8 | UInt64(byte) }
        var characters: [UInt8] = []
        for index in 0..<codeLength {
            if index > 0 && index % 4 == 0 { characters.append(UInt8(ascii: "-")) }
            characters.append(CheckInCode.crockford[Int(value >> (UInt64(index) * 5) & 31)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// A code as typed (either case, dashes or spaces anywhere or none, O for 0, I and L for 1), in
    /// the form `newCode` writes; nil when it is not one.
    static func normalized(_ text: String) -> String? {
        guard text.utf8.count <= 64 else { return nil }
        var code: [UInt8] = []
        for character in text.uppercased().utf8 {
            switch character {
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            case UInt8(ascii: "O"): code.append(UInt8(ascii: "0"))
            case UInt8(ascii: "I"), UInt8(ascii: "L"): code.append(UInt8(ascii: "1"))
            case _ where CheckInCode.crockford.contains(character): code.append(character)
            default: return nil
            }
        }
        guard code.count == codeLength else { return nil }
        for position in [8, 4] { code.insert(UInt8(ascii: "-"), at: position) }
        return String(decoding: code, as: UTF8.self)
    }

    // MARK: Sessions

    /// Writes that `session` was used now, at most once per `seenInterval`.
    static func noteSeen(_ session: ScannerSession, store: any Store, now: Date) throws {
        guard now.timeIntervalSince(session.lastSeenAt) >= seenInterval else { return }
        try store.withSession(.write) { try $0.scanners.touchScannerSession(idHash: session.idHash, now: now, interval: seenInterval) }
    }

    /// A short description of the phone's browser from its `User-Agent`, for the organizer's list.
    static func device(_ request: Request) -> String {
        let agent = request.headers["User-Agent"] ?? ""
        let system = [("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("Windows", "Windows"), ("Mac OS X", "Mac"), ("Linux", "Linux")]
            .first { agent.contains($0.0) }?.1
        let browser = [("Firefox/", "Firefox"), ("EdgA/", "Edge"), ("Edg/", "Edge"), ("CriOS/", "Chrome"), ("Chrome/", "Chrome"), ("Safari/", "Safari")]
            .first { agent.contains($0.0) }?.1
        let parts = [browser, system].compactMap { $0 }
        return parts.isEmpty ? "A browser" : parts.joined(separator: " on ")
    }
}
