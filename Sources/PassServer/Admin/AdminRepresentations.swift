import Foundation
import Storage

/// JSON shapes of the admin API (see openapi.yaml).
struct EventBody: Encodable {
    var id: String
    var name: String
    var venue: String
    var startsAt: String
    var endsAt: String?
    var timeZone: String
    var template: String
    /// The language of the tickets' email.
    var language: String
    var revision: Int64
    var createdAt: String
    var updatedAt: String
    /// Whether changes of the event's tickets enqueue no pushes (see `archivedAt`).
    var archived: Bool
    var archivedAt: String?
    /// When the attendees' data of its tickets was erased (absent while it is not).
    var erasedAt: String?
    var counts: EventCountsBody?
    var reach: ReachBody?
    /// The tickets' emails by state (with `counts`).
    var emailStatus: EmailCountsBody?

    init(_ event: Event, counts: EventCounts? = nil, reach: ReachBody? = nil) {
        id = event.id
        name = event.name
        venue = event.venue
        startsAt = ISODate.format(event.startsAt, timeZone: event.timeZone)
        endsAt = event.endsAt.map { ISODate.format($0, timeZone: event.timeZone) }
        timeZone = event.timeZone
        template = event.template
        language = event.language
        revision = event.revision
        createdAt = ISODate.format(event.createdAt)
        updatedAt = ISODate.format(event.updatedAt)
        archived = event.archivedAt != nil
        archivedAt = event.archivedAt.map { ISODate.format($0) }
        erasedAt = event.erasedAt.map { ISODate.format($0) }
        self.counts = counts.map(EventCountsBody.init)
        self.reach = reach
    }

    /// The event with the counts and reach of its tallies' total.
    init(_ event: Event, tally: Tally) {
        self.init(event, counts: EventCounts(tally), reach: ReachBody(Reach(tally)))
    }
}

struct EventCountsBody: Encodable {
    var tickets: Int
    var active: Int
    var cancelled: Int
    /// The same number as `cancelled` (the name the first API version used).
    var voided: Int
    var registeredDevices: Int
    var pendingPushes: Int
    var failedPushes: Int
    /// Active tickets checked in at the door.
    var checkedIn = 0

    init(_ counts: EventCounts) {
        tickets = counts.tickets
        active = counts.tickets - counts.cancelled
        cancelled = counts.cancelled
        voided = counts.cancelled
        registeredDevices = counts.registeredDevices
        pendingPushes = counts.pendingPushes
        failedPushes = counts.failedPushes
    }
}

struct JobBody: Encodable {
    var id: String
    var kind: String
    var eventId: String?
    var state: String
    var total: Int64
    var done: Int64
    var failed: Int64
    var startedAt: String?
    var finishedAt: String?
    var error: String?
    var reach: ReachBody?
    /// For an event send: the emails it queued, by state now (sent, failed, still queued).
    var emails: EmailCountsBody?

    init(_ job: Job, reach: ReachBody? = nil) {
        id = job.id
        kind = job.kind
        eventId = job.eventID
        state = job.state.rawValue
        total = job.total
        done = job.done
        failed = job.failed
        startedAt = job.startedAt.map { ISODate.format($0) }
        finishedAt = job.finishedAt.map { ISODate.format($0) }
        error = job.error
        self.reach = reach
    }
}

struct TicketBody: Encodable {
    var serialNumber: String
    var passTypeIdentifier: String
    var eventId: String?
    var attendeeName: String
    var attendeeEmail: String?
    var seat: String?
    var externalId: String?
    /// The values of the template's extra fields.
    var extra: [String: ExtraValue]
    /// The language of the ticket's email; absent: the event's.
    var language: String?
    var status: String
    /// Why the ticket was cancelled (the wire name the first API version used).
    var voidReason: String?
    /// When the ticket was checked in at the door; absent before.
    var checkedInAt: String?
    /// The check-in itself (time, gate, scanner) on a ticket's reads and lists; absent before.
    var checkIn: CheckInBody?
    var revision: Int64
    var lastModified: String
    var createdAt: String
    var downloadURL: String?
    var registeredDevices: Int?
    var devices: [DeviceBody]?
    var servedRevision: Int64?
    var servedAt: String?
    var latestPushes: [PushBody]?
    var prunedRegistrations: [PruneBody]?
    /// The ticket's check-ins that were undone, newest first (on the ticket's own read).
    var undoneCheckIns: [UndoneCheckInBody]?
    /// The ticket in Google Wallet (on the ticket's own read, while Google Wallet is on).
    var googleWallet: GoogleWalletTicketBody?
    /// What became of the ticket's email (of a ticket of an order, the order's); absent until one was queued.
    var emailStatus: EmailStatusBody?
    /// The order the ticket was issued in (`GET /admin/v1/orders/{orderId}`); absent for a ticket issued on its own.
    var orderId: String?

    init(_ pass: StoredPass, downloadURL: String? = nil) {
        serialNumber = pass.serialNumber.rawValue
        passTypeIdentifier = pass.passTypeIdentifier.rawValue
        eventId = pass.eventID
        attendeeName = pass.attendeeName
        attendeeEmail = pass.attendeeEmail
        seat = pass.seat
        externalId = pass.externalID
        extra = pass.extra
        language = pass.language
        status = Self.status(of: pass)
        voidReason = pass.cancellationReason
        checkedInAt = pass.checkedInAt.map { ISODate.format($0) }
        revision = pass.revision
        lastModified = ISODate.format(pass.modifiedDate)
        createdAt = ISODate.format(pass.createdAt)
        self.downloadURL = downloadURL
        orderId = pass.orderID
    }
}

extension TicketBody {
    /// A ticket's `status` as the API names it.
    static func status(of pass: StoredPass) -> String {
        pass.status == .cancelled ? "cancelled" : "active"
    }
}

struct PushBody: Encodable {
    var status: Int
    var reason: String?
    var outcome: String?
    var apnsId: String?
    var latencyMs: Int64
    var at: String

    init(_ entry: PushLogEntry) {
        status = entry.status
        reason = entry.reason
        outcome = entry.outcome
        apnsId = entry.apnsID
        latencyMs = entry.latencyMilliseconds
        at = ISODate.format(entry.createdAt)
    }
}

/// A registration of the ticket deleted after APNs's answer about its push token.
struct PruneBody: Encodable {
    var status: Int
    var reason: String
    /// The first 16 hex digits of the token's SHA-256: tells repeated prunes of one token apart
    /// from different phones without showing the token.
    var tokenHash: String
    var at: String

    init(_ prune: RegistrationPrune) {
        status = prune.status
        reason = prune.reason
        tokenHash = String(prune.tokenHash.prefix(16))
        at = ISODate.format(prune.prunedAt)
    }
}

struct TicketListBody: Encodable {
    var tickets: [TicketBody]
    var nextCursor: String?
}

struct EventUpdateBody: Encodable {
    var event: EventBody
    var job: JobSummary?

    struct JobSummary: Encodable {
        var id: String
        var state: String
        var total: Int64
    }
}
