import Foundation
import PassBundle
import Storage

/// An announcement as an organizer wrote it, not yet checked.
struct AnnouncementDraft: Sendable, Equatable {
    var message: String?
    /// Whether the pass's back field alerts the lock screen (`changeMessage` `%@`); a silent one
    /// only changes the back of the pass.
    var notify = true
    /// When to send it; nil: now.
    var sendAt: Date?
    var unreadable: [OrganizerError.Issue] = []

    static let fields = ["message", "notify", "sendAt"]
}

/// An announcement as the organizers see it: sent (or withdrawn since), or scheduled (or failed
/// or cancelled before its time), with its reach once sent.
struct AnnouncementItem: Sendable, Equatable {
    enum State: String, Sendable, Equatable, CaseIterable {
        case scheduled, sent, withdrawn, failed, cancelled
    }

    var id: String
    var eventID: String
    var message: String
    var notify: Bool
    var state: State
    /// When it was sent, or is (or was) to be sent.
    var sendAt: Date
    var withdrawnAt: Date?
    /// Why a scheduled one could not be sent.
    var reason: String?
    /// Whether the event's passes carry it now.
    var isCurrent = false
    /// The job that put it on the passes, and its reach: the phones holding the pass it made.
    var jobID: String?
    var reach: Reach?

    init(_ announcement: Announcement, current: EventAnnouncement?, job: Job?, tally: EventTally?) {
        id = announcement.id
        eventID = announcement.eventID
        message = announcement.message
        notify = announcement.notify
        state = announcement.withdrawnAt == nil ? .sent : .withdrawn
        sendAt = announcement.sentAt
        withdrawnAt = announcement.withdrawnAt
        isCurrent = current?.id == announcement.id
        jobID = announcement.jobID
        if let job, let tally { reach = Reach(job: job, of: tally) }
    }

    /// A scheduled one (pending, failed or cancelled; an applied one is an `Announcement`).
    init(scheduled action: ScheduledAction, payload: AnnouncementPayload) {
        id = action.id
        eventID = action.eventID
        message = payload.message
        notify = payload.notify
        state = switch action.state {
        case .pending, .applied: .scheduled
        case .failed: .failed
        case .cancelled: .cancelled
        }
        sendAt = action.dueAt
        reason = action.reason
    }
}

/// A scheduled event edit as an organizer gave it: when, and the same typed draft an immediate
/// edit takes, with a whole design optionally.
struct ScheduledEditDraft: Sendable, Equatable {
    var applyAt: Date?
    var edit = EventEdit()
    var design: PassDesign?
    var unreadable: [OrganizerError.Issue] = []
}

/// A scheduled event edit as the organizers see it.
struct ScheduledChange: Sendable, Equatable {
    var action: ScheduledAction
    var payload: EventEditPayload

    var id: String { action.id }
}
