public import Foundation

/// A claimed Google Wallet change: one `google_outbox` row, with the event (a class) or the ticket
/// and its event (an object) as they are at the claim, and what Google was told of them before.
public struct GoogleOutboxRow: Sendable, Equatable {
    public enum Target: Sendable, Hashable {
        /// An event's class.
        case eventClass(eventID: String)
        /// A ticket's object.
        case object(passID: Int64)
    }

    public var id: Int64
    public var target: Target
    /// Whether the change asks for a notifying update.
    public var notify: Bool
    public var generation: Int64
    public var attempts: Int
    public var firstEnqueuedAt: Date
    public var claimedUntil: Date?
    /// The ticket (objects) and the event (both); nil when gone.
    public var ticket: StoredPass?
    public var event: Event?
    /// Whether Google holds the class or object already (it was inserted once).
    public var inserted = false
    /// Notifying updates of the last 24 hours before this claim.
    public var recentNotifications: [Date] = []
    /// A class: the id of the announcement last added to it with Google's message call.
    public var announced: String?

    static let columns = SQLQuery(unsafeRaw: "id, target, notify, generation, attempts, first_enqueued_at, claimed_until")

    /// Byte order of the target: the order enqueueing locks rows (a class before its objects).
    public static func locksBefore(_ a: GoogleOutboxRow, _ b: GoogleOutboxRow) -> Bool {
        a.key.utf8.lexicographicallyPrecedes(b.key.utf8)
    }

    var key: String { Self.key(target) }

    static func key(_ target: Target) -> String {
        switch target {
        case .eventClass(let eventID): "c:" + eventID
        case .object(let passID): "o:" + objectDigits(passID)
        }
    }

    /// A pass id as 20 digits, so byte order is numeric order.
    static func objectDigits(_ passID: Int64) -> String {
        let digits = String(passID)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    init(row: SQLRow) throws {
        id = try row.int64("id")
        let key = try row.string("target")
        if key.hasPrefix("o:"), let passID = Int64(key.dropFirst(2)) {
            target = .object(passID: passID)
        } else if key.hasPrefix("c:") {
            target = .eventClass(eventID: String(key.dropFirst(2)))
        } else {
            throw StorageError(.backend, "google_outbox row \(id) has target \(key)")
        }
        notify = try row.int("notify") != 0
        generation = try row.int64("generation")
        attempts = try row.int("attempts")
        firstEnqueuedAt = try row.date("first_enqueued_at")
        claimedUntil = try row.optionalDate("claimed_until")
    }
}

/// What one answered Google row left at Google, recorded beside the settlement.
public struct GoogleResult: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Google holds the class or object as we last wrote it (with `state` for an object, and
        /// for a class the announcement just added to it, if any).
        case synced(state: String?, notified: Bool, announced: String? = nil)
        /// Google refused it for good (the reason kept).
        case failed(reason: String)
        /// Still on its way (retried); nothing to record.
        case pending
    }

    public var target: GoogleOutboxRow.Target
    public var kind: Kind

    public init(target: GoogleOutboxRow.Target, kind: Kind) {
        self.target = target
        self.kind = kind
    }
}

/// What Google holds of one ticket, as far as PassServer knows.
public struct GoogleObjectRecord: Sendable, Equatable {
    public var passID: Int64
    public var insertedAt: Date?
    public var syncedAt: Date?
    public var state: String?
    public var failedReason: String?
    public var notifiedAt: [Date]
}
