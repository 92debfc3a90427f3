import Foundation
import GoogleWallet
import Logging
import PassBundle
import Storage
import Synchronization

/// Google Wallet as an outbox channel: `google_outbox` rows, Google's Wallet API as the sender,
/// `GooglePolicy` as the reply policy. Each row's class or object is written when it is claimed,
/// from the event and ticket as they are then (`GoogleTickets`), so a change that arrives while an
/// older one is in flight is sent after it with everything up to date. Each batch of answers is
/// recorded in one transaction: the rows' settlement, then what Google now holds.
///
/// Notifications: Google tells a holder about at most three updates of one pass a day; a row that
/// asks for a notifying update after three in the last 24 hours is sent silent.
final class GoogleWalletChannel: OutboxChannel {
    /// Notifying updates Google allows per pass and 24 hours.
    static let notificationsPerDay = 3

    let store: any Store
    let sender: GoogleSender
    let policy: GooglePolicy
    let tickets: GoogleTickets
    let readiness: Readiness
    let logger: Logger
    let now: @Sendable () -> Date
    let statistics = Mutex(OutboxStatistics())
    /// Writes every class and object (one encoder for the engine's thread, not one per row).
    private let encoder = JSONEncoder.googleWallet
    let reachability = Mutex(Reachability())

    init(store: any Store, sender: GoogleSender, policy: GooglePolicy, tickets: GoogleTickets, readiness: Readiness, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.sender = sender
        self.policy = policy
        self.tickets = tickets
        self.readiness = readiness
        self.logger = logger
        self.now = now
    }

    func claim(limit: Int, now: Date, lease: Duration) throws -> [GoogleOutboxRow] {
        try store.withSession(.write) { try $0.google.claimGoogle(limit: limit, now: now, lease: lease) }
    }

    func message(for row: GoogleOutboxRow) -> Result<GoogleMessage, GoogleMessageProblem> {
        Result { () throws(GoogleMessageProblem) in
            let notify = row.notify && row.recentNotifications.count < Self.notificationsPerDay
            switch row.target {
            case .eventClass(let eventID):
                guard let event = row.event else { throw GoogleMessageProblem(message: "event \(eventID) is gone") }
                let design: PassDesign
                do { design = try PassService.design(of: event) } catch {
                    throw GoogleMessageProblem(message: "event \(eventID) has a design that cannot be read")
                }
                var resource = tickets.eventClass(event, design: design, notify: notify)
                // The class carries the event's announcement; one Google does not have yet is
                // added after the class is written, with Google's message call (which notifies).
                let fresh = Self.freshAnnouncement(row)
                resource.messages = fresh != nil ? [] : event.announcement.map { [tickets.message($0, notifying: false)] } ?? []
                guard let body = try? encoder.encode(resource) else { throw GoogleMessageProblem(message: "the class of \(eventID) cannot be encoded") }
                var message = GoogleMessage(resource: .eventTicketClass, id: resource.id, body: Array(body), inserted: row.inserted, notify: notify)
                if let fresh {
                    let notifying = fresh.notify && row.recentNotifications.count + (notify ? 1 : 0) < Self.notificationsPerDay
                    guard let added = try? encoder.encode(AddMessage(message: tickets.message(fresh, notifying: notifying))) else {
                        throw GoogleMessageProblem(message: "the announcement of \(eventID) cannot be encoded")
                    }
                    message.addMessage = Array(added)
                    message.notify = notify || notifying
                }
                return message
            case .object(let passID):
                guard let pass = row.ticket, let event = row.event else { throw GoogleMessageProblem(message: "ticket \(passID) or its event is gone") }
                let resource: EventTicketObject
                do { resource = try tickets.object(pass, event: event, notify: notify) } catch {
                    throw GoogleMessageProblem(message: "the barcode of ticket \(passID) cannot be made")
                }
                guard let body = try? encoder.encode(resource) else { throw GoogleMessageProblem(message: "the object of \(passID) cannot be encoded") }
                return GoogleMessage(resource: .eventTicketObject, id: resource.id, body: Array(body), inserted: row.inserted, notify: notify)
            }
        }
    }

    func record(_ batch: OutboxBatch<GoogleWalletChannel>, now: Date) throws {
        let results = batch.items.map { item -> GoogleResult in
            let kind: GoogleResult.Kind
            switch (item.decision.settlement, item.answer) {
            case (.completed, .synced(_, let notified)):
                let state: String? = if case .object = item.row.target, let pass = item.row.ticket { GoogleTickets.state(of: pass, event: item.row.event).rawValue } else { nil }
                kind = .synced(state: state, notified: notified, announced: Self.freshAnnouncement(item.row)?.id)
            case (.failed(let reason), _): kind = .failed(reason: reason)
            default: kind = .pending
            }
            return GoogleResult(target: item.row.target, kind: kind)
        }
        try store.transaction { session in
            try session.outbox.settleOutbox(batch.settlement, in: .google, now: now)
            try session.google.recordGoogle(results, now: now)
        }
    }

    func recorded(_ batch: OutboxBatch<GoogleWalletChannel>, receipt: Void?, now: Date) {
        reachability.observe(
            batch.items.map { ($0.answer.reachedGoogle, $0.decision.reason) }, at: now,
            far: FarEnd(name: "Google's Wallet API", messages: "updates", answerKey: "google.answer"), logger: logger
        )
        guard receipt != nil else { return }
        var added = batch.statistics
        for item in batch.items {
            switch item.decision.result {
            case .synced:
                if case .synced(_, true) = item.answer { added.notified += 1 }
            case .failed:
                logger.warning("Google refused a change", [
                    "google.target": "\(item.row.target)", "google.reason": item.decision.reason ?? "",
                ])
            default: break
            }
        }
        statistics.withLock { $0.add(added) }
    }

    func halted(why answer: String, until: Date, pause: TimeInterval) {
        logger.critical("Google refused our service account or issuer; all Google Wallet updates paused", [
            "google.answer": answer, "retry_in_s": "\(Int(pause))",
        ])
        readiness.warn("google_wallet", warning: "Google Wallet paused: Google answered \(answer); one probe at \(ISODate.format(until))")
    }

    func resumed() {
        logger.notice("Google accepts our updates again; Google Wallet resumed")
        readiness.warn("google_wallet", warning: nil)
    }
}

extension GoogleWalletChannel {
    /// The body of Google's message call.
    struct AddMessage: Encodable {
        var message: GoogleMessageItem
    }

    /// A class row's announcement that Google was not given yet (none for objects).
    static func freshAnnouncement(_ row: GoogleOutboxRow) -> EventAnnouncement? {
        guard case .eventClass = row.target, let announcement = row.event?.announcement, announcement.id != row.announced else { return nil }
        return announcement
    }
}

extension GoogleOutboxRow: OutboxItem {}

