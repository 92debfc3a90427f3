import Foundation
import HTTPServer
import PassBundle
import Storage

/// Announcements and scheduled changes as the admin API shows them (`Organizer+Announcements`,
/// `Organizer+ScheduledChanges`): admins write, send, schedule, withdraw, edit and cancel; viewers
/// read. Times go in as ISO 8601 with an offset and come out in the event's own zone.
extension AdminController {
    static let announcementFields: Set<String> = Set(AnnouncementDraft.fields)
    static let scheduledChangeFields = eventFields.union(["applyAt", "design"])

    /// `POST /admin/v1/events/{eventId}/announcements`: sends it now (201, `sent`, with its job),
    /// or saves it for `sendAt` (201, `scheduled`).
    func createAnnouncement(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var input = try AdminInput(request, allowed: Self.announcementFields)
        var draft = AnnouncementDraft()
        draft.message = input.string("message").value
        draft.notify = input.boolean("notify").value ?? true
        draft.sendAt = input.date("sendAt").value
        draft.unreadable = input.unreadable
        let item = try organizer.announce(event, draft, requestID: request.requestID)
        return .json(AnnouncementBody(item, timeZone: event.timeZone), status: 201, encoder: .api)
    }

    /// `GET /admin/v1/events/{eventId}/announcements`: sent and scheduled, latest first.
    func listAnnouncements(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        let items = try organizer.announcements(of: event).map { AnnouncementBody($0, timeZone: event.timeZone) }
        return .json(AnnouncementListBody(items: items), encoder: .api)
    }

    /// `GET /admin/v1/events/{eventId}/announcements/{announcementId}`.
    func showAnnouncement(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        let item = try organizer.announcement(event, id: request.parameters["announcementId"])
        return .json(AnnouncementBody(item, timeZone: event.timeZone), encoder: .api)
    }

    /// `POST /admin/v1/events/{eventId}/announcements/{announcementId}/withdraw`: a sent one leaves
    /// the passes silently, a scheduled one is cancelled. 200; again changes nothing.
    func withdrawAnnouncement(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        _ = try AdminInput(request, allowed: [], bodyRequired: false)
        let item = try organizer.withdrawAnnouncement(event, id: request.parameters["announcementId"], requestID: request.requestID)
        return .json(AnnouncementBody(item, timeZone: event.timeZone), encoder: .api)
    }

    /// `POST /admin/v1/events/{eventId}/scheduled-changes`: 201 with the scheduled change.
    func createScheduledChange(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        let change = try organizer.scheduleChange(event, try Self.scheduledEditDraft(request), requestID: request.requestID)
        return .json(ScheduledChangeBody(change, event: event), status: 201, encoder: .api)
    }

    /// `GET /admin/v1/events/{eventId}/scheduled-changes`: pending ones by time, then the others.
    func listScheduledChanges(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        let items = try organizer.scheduledChanges(of: event).map { ScheduledChangeBody($0, event: event) }
        return .json(ScheduledChangeListBody(items: items), encoder: .api)
    }

    /// `GET /admin/v1/events/{eventId}/scheduled-changes/{changeId}`.
    func showScheduledChange(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        return .json(ScheduledChangeBody(try organizer.scheduledChange(event, id: request.parameters["changeId"]), event: event), encoder: .api)
    }

    /// `PUT /admin/v1/events/{eventId}/scheduled-changes/{changeId}`: replaces a pending one's time
    /// and edit; 409 `not_pending` once it was applied, failed or cancelled.
    func replaceScheduledChange(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        let change = try organizer.updateScheduledChange(
            event, id: request.parameters["changeId"], try Self.scheduledEditDraft(request), requestID: request.requestID
        )
        return .json(ScheduledChangeBody(change, event: event), encoder: .api)
    }

    /// `POST /admin/v1/events/{eventId}/scheduled-changes/{changeId}/cancel`.
    func cancelScheduledChange(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        _ = try AdminInput(request, allowed: [], bodyRequired: false)
        let change = try organizer.cancelScheduledChange(event, id: request.parameters["changeId"], requestID: request.requestID)
        return .json(ScheduledChangeBody(change, event: event), encoder: .api)
    }

    /// A scheduled change from a body: `applyAt`, the fields of an event edit (as `PATCH
    /// /admin/v1/events/{eventId}` takes them) and optionally a whole `design`.
    static func scheduledEditDraft(_ request: Request) throws -> ScheduledEditDraft {
        var input = try AdminInput(request, allowed: scheduledChangeFields)
        var draft = ScheduledEditDraft()
        draft.edit = input.eventEdit()
        let known = input.unreadable.count
        draft.applyAt = input.date("applyAt").value
        var designIssues: [OrganizerError.Issue] = []
        if let value = input.value("design"), value != .null {
            do {
                draft.design = try readDesign(Array(try JSONEncoder().encode(value)))
            } catch OrganizerError.invalid(let issues) {
                designIssues = issues.map { OrganizerError.Issue("design." + $0.field, $0.message) }
            }
        }
        draft.unreadable = Array(input.unreadable.dropFirst(known)) + designIssues
        return draft
    }
}

/// An announcement as the admin API shows it.
struct AnnouncementBody: Encodable {
    var id: String
    var eventId: String
    var message: String
    var notify: Bool
    /// `scheduled`, `sent`, `withdrawn`, `failed` or `cancelled`.
    var state: String
    /// When it was sent, or is (or was) to be sent.
    var sendAt: String
    var withdrawnAt: String?
    /// Why a scheduled one could not be sent.
    var reason: String?
    /// Whether the event's passes carry it now.
    var current: Bool
    var jobId: String?
    var reach: ReachBody?

    init(_ item: AnnouncementItem, timeZone: String) {
        id = item.id
        eventId = item.eventID
        message = item.message
        notify = item.notify
        state = item.state.rawValue
        sendAt = ISODate.format(item.sendAt, timeZone: timeZone)
        withdrawnAt = item.withdrawnAt.map { ISODate.format($0, timeZone: timeZone) }
        reason = item.reason
        current = item.isCurrent
        jobId = item.jobID
        reach = item.reach.map(ReachBody.init)
    }
}

struct AnnouncementListBody: Encodable {
    var items: [AnnouncementBody]
}

/// A scheduled event edit as the admin API shows it: the fields it changes (`edit`, as `PATCH`
/// takes them) and the design it puts in place, if any.
struct ScheduledChangeBody: Encodable {
    var id: String
    var eventId: String
    /// `pending`, `applied`, `failed` or `cancelled`.
    var state: String
    var applyAt: String
    var edit: EditBody
    var design: PassDesign?
    /// Why it could not apply.
    var reason: String?
    /// The re-push job its application started.
    var jobId: String?
    var createdAt: String
    var updatedAt: String
    /// When it was applied, failed or was cancelled.
    var finishedAt: String?

    struct EditBody: Encodable {
        var name: String?
        var venue: String?
        var startsAt: String?
        /// `null`: the end is removed; absent: left as it is.
        var endsAt: String??
        var timeZone: String?
        var language: String?
        var template: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(name, forKey: .name)
            try container.encodeIfPresent(venue, forKey: .venue)
            try container.encodeIfPresent(startsAt, forKey: .startsAt)
            if let endsAt { try container.encode(endsAt, forKey: .endsAt) }
            try container.encodeIfPresent(timeZone, forKey: .timeZone)
            try container.encodeIfPresent(language, forKey: .language)
            try container.encodeIfPresent(template, forKey: .template)
        }

        private enum CodingKeys: String, CodingKey {
            case name, venue, startsAt, endsAt, timeZone, language, template
        }
    }

    init(_ change: ScheduledChange, event: Event) {
        let action = change.action
        let edit = change.payload.edit
        // The edit's times in the zone it gives the event, else the event's.
        let zone = edit.timeZone ?? event.timeZone
        id = action.id
        eventId = action.eventID
        state = action.state.rawValue
        applyAt = ISODate.format(action.dueAt, timeZone: event.timeZone)
        self.edit = EditBody(
            name: edit.name, venue: edit.venue, startsAt: edit.startsAt.map { ISODate.format($0, timeZone: zone) },
            endsAt: edit.endsAt.map { $0.map { ISODate.format($0, timeZone: zone) } }, timeZone: edit.timeZone, language: edit.language,
            template: edit.template
        )
        design = change.payload.design
        reason = action.reason
        jobId = action.jobID
        createdAt = ISODate.format(action.createdAt)
        updatedAt = ISODate.format(action.updatedAt)
        finishedAt = action.finishedAt.map { ISODate.format($0) }
    }
}

struct ScheduledChangeListBody: Encodable {
    var items: [ScheduledChangeBody]
}
