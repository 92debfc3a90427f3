public import Foundation
import ByteEncoding

/// A webhook event as it was recorded when its change was made: its public id, type and time, and
/// the ticket and event as they were then (the JSON the enqueueing statement wrote, decoded by
/// `contents()` where it is needed: the sender's threads, not the claim's).
public struct WebhookEventRecord: Sendable, Equatable {
    /// The stored ticket and event as values, and the detail.
    public struct Contents: Sendable, Equatable {
        /// The ticket as it was, for ticket and pass events; nil for event events.
        public var ticket: StoredPass?
        /// The ticket's event (or the event itself) as it was.
        public var event: Event?
        public var detail: WebhookDetail?
    }

    public var id: Int64
    /// `evt_` and 32 hex digits: the id receivers de-duplicate by.
    public var publicID: String
    /// The type's raw value (a type this version does not know stays readable).
    public var type: String
    public var createdAt: Date
    /// The stored JSON of the ticket, the event and the detail.
    public var ticketJSON: String?
    public var eventJSON: String?
    public var detailJSON: String?

    static let columns = SQLQuery(unsafeRaw: "id, public_id, event_type, created_at, ticket, event, detail")

    init(row: SQLRow) throws {
        id = try row.int64("id")
        publicID = try row.string("public_id")
        type = try row.string("event_type")
        createdAt = try row.date("created_at")
        ticketJSON = try row.optionalString("ticket")
        eventJSON = try row.optionalString("event")
        detailJSON = try row.optionalString("detail")
    }

    /// The ticket, event (unless `readingEvent` is false) and detail decoded; throws when one
    /// cannot be read.
    public func contents(readingEvent: Bool = true) throws -> Contents {
        Contents(
            ticket: try ticketJSON.map(WebhookSnapshot.ticket(from:)), event: readingEvent ? try eventJSON.map(WebhookSnapshot.event(from:)) : nil,
            detail: try detailJSON.map(WebhookDetail.init(json:))
        )
    }

    /// An event as a webhook event stores it (`eventJSON`), read.
    public static func event(from json: String) throws -> Event {
        try WebhookSnapshot.event(from: json)
    }

    /// The ticket as it was (nil when there is none or it cannot be read).
    public var ticket: StoredPass? { try? contents().ticket }
    /// The event as it was (nil when there is none or it cannot be read).
    public var event: Event? { try? contents().event }
    public var detail: WebhookDetail? { try? contents().detail }
}

/// What a webhook event says beyond the ticket and event: a check-in's time, gate and scanner, an
/// email's last reply. Stored as a small JSON object (`checked_in_at` in milliseconds).
public struct WebhookDetail: Sendable, Equatable {
    public var checkedInAt: Int64?
    public var gate: String?
    public var scanner: String?
    public var reply: String?

    public init(checkedInAt: Int64? = nil, gate: String? = nil, scanner: String? = nil, reply: String? = nil) {
        self.checkedInAt = checkedInAt
        self.gate = gate
        self.scanner = scanner
        self.reply = reply
    }

    /// `checkedInAt` as a date.
    public var checkedInDate: Date? { checkedInAt.map(Date.init(storageMillis:)) }

    init(json: String) throws {
        var detail = WebhookDetail()
        for (key, value) in try FlatJSON.object(json, what: "detail") {
            switch (key, value) {
            case ("checked_in_at", .integer(let millis)): detail.checkedInAt = millis
            case ("gate", .text(let text)): detail.gate = text
            case ("scanner", .text(let text)): detail.scanner = text
            case ("reply", .text(let text)): detail.reply = text
            default: break
            }
        }
        self = detail
    }

    /// The JSON text stored (written by hand: a check-in writes one whether or not anyone wants it).
    var json: String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        func field(_ name: String, _ value: String?) {
            guard let value else { return }
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            JSONString.append(name, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONString.append(value, to: &out)
        }
        if let checkedInAt {
            out += #""checked_in_at":\#(checkedInAt)"#.utf8
        }
        field("gate", gate)
        field("scanner", scanner)
        field("reply", reply.map { String($0.prefix(500)) })
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }
}

/// A claimed delivery: one `webhook_deliveries` row with its webhook event and its endpoint as
/// they are at the claim (nil when gone).
public struct WebhookDeliveryRow: Sendable, Equatable {
    public var id: Int64
    public var endpointID: String
    public var generation: Int64
    public var attempts: Int
    public var firstEnqueuedAt: Date
    public var claimedUntil: Date?
    public var webhookEventID: Int64
    public var event: WebhookEventRecord?
    public var endpoint: WebhookEndpoint?

    static let columns = SQLQuery(unsafeRaw: "id, endpoint_id, webhook_event_id, generation, attempts, first_enqueued_at, claimed_until")

    /// Rows are locked in id order by every transaction that changes several of them.
    public static func locksBefore(_ a: WebhookDeliveryRow, _ b: WebhookDeliveryRow) -> Bool { a.id < b.id }

    init(row: SQLRow) throws {
        id = try row.int64("id")
        endpointID = try row.string("endpoint_id")
        webhookEventID = try row.int64("webhook_event_id")
        generation = try row.int64("generation")
        attempts = try row.int("attempts")
        firstEnqueuedAt = try row.date("first_enqueued_at")
        claimedUntil = try row.optionalDate("claimed_until")
    }
}

/// One delivery as the endpoint's log shows it.
public struct WebhookDelivery: Sendable, Equatable {
    public enum State: String, Sendable, Equatable, CaseIterable {
        /// Waiting for its next attempt (or on its way).
        case pending
        /// Answered 2xx.
        case delivered
        /// Given up on (tried for too long, or refused before sending).
        case failed
        /// Its endpoint is disabled: sent once it is enabled again.
        case held
    }

    public var id: Int64
    public var endpointID: String
    public var webhookEventID: Int64
    public var publicID: String
    public var type: String
    public var state: State
    /// Attempts made so far.
    public var attempts: Int
    public var createdAt: Date
    public var nextAttemptAt: Date
    public var lastAttemptAt: Date?
    /// The last attempt's HTTP status (0: no answer) and what went wrong, if anything.
    public var lastStatus: Int?
    public var lastReason: String?
    public var latencyMilliseconds: Int?

    static let columns = SQLQuery(unsafeRaw: """
        d.id, d.endpoint_id, d.webhook_event_id, w.public_id, w.event_type, d.state, d.attempts, d.first_enqueued_at, d.next_attempt_at, \
        d.last_attempt_at, d.last_status, d.last_reason, d.latency_ms
        """)

    init(row: SQLRow) throws {
        id = try row.int64("id")
        endpointID = try row.string("endpoint_id")
        webhookEventID = try row.int64("webhook_event_id")
        publicID = try row.string("public_id")
        type = try row.string("event_type")
        state = State(rawValue: try row.string("state")) ?? .pending
        attempts = try row.int("attempts")
        createdAt = try row.date("first_enqueued_at")
        nextAttemptAt = try row.date("next_attempt_at")
        lastAttemptAt = try row.optionalDate("last_attempt_at")
        lastStatus = try row.optionalInt64("last_status").map(Int.init)
        lastReason = try row.optionalString("last_reason")
        latencyMilliseconds = try row.optionalInt64("latency_ms").map(Int.init)
    }
}

/// What one answered delivery's attempt was, recorded beside its settlement.
public struct WebhookAttempt: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// The endpoint answered 2xx.
        case succeeded
        /// Sent (or refused before sending) and not answered 2xx: counts against the endpoint's health.
        case failed(reason: String)
        /// Not sent at all (the sender stopped, the endpoint was skipped): the endpoint's health stays.
        case notAttempted
    }

    public var deliveryID: Int64
    public var endpointID: String
    /// The HTTP status, 0 when none came.
    public var status: Int
    public var latencyMilliseconds: Int
    public var outcome: Outcome

    public init(deliveryID: Int64, endpointID: String, status: Int, latencyMilliseconds: Int, outcome: Outcome) {
        self.deliveryID = deliveryID
        self.endpointID = endpointID
        self.status = status
        self.latencyMilliseconds = latencyMilliseconds
        self.outcome = outcome
    }
}

/// An endpoint whose every attempt has failed since `failingSince`, beyond the limit given to
/// `recordWebhookAttempts`.
public struct FailingWebhookEndpoint: Sendable, Equatable {
    public var id: String
    public var failingSince: Date
    public var lastFailure: String?
}

/// Counts for `/metrics`.
public struct WebhookCounts: Sendable, Equatable {
    public var pending = 0
    public var failed = 0
    public var held = 0
    public var enabledEndpoints = 0
    public var disabledEndpoints = 0
}
