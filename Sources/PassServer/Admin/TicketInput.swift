import Foundation
import PassBundle
import Storage

/// A new ticket as the admin API takes it: one `POST …/tickets` body, or one row of a batch.
enum TicketInput {
    /// The body fields of a ticket; `extra` holds the template's declared fields.
    static let fields = Set(TicketDraft.fields)

    /// The fields of a batch row: a ticket's, and the order it is issued in with its buyer.
    static let rowFields = fields.union(TicketDraft.orderFields)

    /// The longest external id, in characters.
    static let externalIDMaxLength = TicketDraft.externalIDMaxLength
}

extension AdminInput {
    /// The fields of a new event (read with `allowed: EventDraft.fields`) as they were sent,
    /// with what could not be read.
    mutating func eventDraft() -> EventDraft {
        var draft = EventDraft()
        draft.name = string("name").value
        draft.venue = string("venue").value
        draft.startsAt = date("startsAt").value
        draft.endsAt = date("endsAt").value
        draft.timeZone = string("timeZone").value
        draft.template = string("template").value
        draft.language = string("language").value
        draft.unreadable = unreadable
        return draft
    }

    /// A change of an event: the fields named, `endsAt: null` removing the end.
    mutating func eventEdit() -> EventEdit {
        var edit = EventEdit()
        edit.name = string("name").value
        edit.venue = string("venue").value
        edit.startsAt = date("startsAt").value
        edit.endsAt = date("endsAt", nullable: true).change
        edit.timeZone = string("timeZone").value
        edit.language = string("language").value
        edit.template = string("template").value
        edit.unreadable = unreadable
        return edit
    }

    /// A new ticket (read with `allowed: TicketInput.fields`, and `notify` where taken).
    mutating func ticketDraft() -> TicketDraft {
        var draft = TicketDraft()
        draft.attendeeName = string("attendeeName").value
        draft.attendeeEmail = string("attendeeEmail").value
        draft.seat = string("seat").value
        draft.externalID = string("externalId").value
        draft.language = string("language").value
        draft.extra = extraValues()
        draft.orderID = string("orderId").value
        draft.buyerEmail = string("buyerEmail").value
        draft.buyerName = string("buyerName").value
        draft.unreadable = unreadable
        return draft
    }

    /// A new order (read with `allowed: OrderDraft.fields` and `notify`): its buyer, and each of
    /// `tickets` read as a new ticket whose problems are named `tickets[<index>].<field>`.
    mutating func orderDraft() -> OrderDraft {
        var draft = OrderDraft()
        draft.externalID = string("externalId").value
        draft.buyerEmail = string("buyerEmail").value
        draft.buyerName = string("buyerName").value
        draft.language = string("language").value
        switch value("tickets") {
        case nil:
            break
        case .array(let elements)?:
            draft.tickets = elements.enumerated().map { index, element in
                guard case .object(let object) = element else {
                    var ticket = TicketDraft()
                    ticket.unreadable = [OrganizerError.Issue("", "must be an object")]
                    return ticket
                }
                var input = AdminInput(object: object, allowed: TicketInput.fields)
                return input.ticketDraft()
            }
        default:
            problem("tickets", "must be an array of ticket objects")
        }
        draft.unreadable = unreadable
        return draft
    }

    /// A change of a ticket's holder fields: `null` removes an optional value.
    mutating func ticketEdit() -> TicketEdit {
        var edit = TicketEdit()
        edit.attendeeName = string("attendeeName").value
        edit.seat = string("seat", nullable: true).change
        edit.attendeeEmail = string("attendeeEmail", nullable: true).change
        edit.externalID = string("externalId", nullable: true).change
        edit.language = string("language", nullable: true).change
        edit.extra = extraValues()
        edit.unreadable = unreadable
        return edit
    }

    /// The events list's query parameters.
    mutating func eventQuery() -> EventQuery {
        var query = EventQuery()
        query.search = string("q").value
        query.startsFrom = instant("from")
        query.startsBefore = instant("to")
        switch choice("archived", ["true", "false"]) {
        case "true": query.archived = true
        case "false": query.archived = false
        default: break
        }
        query.cursor = string("cursor").value
        query.limit = integer("limit", in: 1...100, default: 20)
        query.unreadable = unreadable
        return query
    }

    /// An event's tickets list's query parameters.
    mutating func ticketQuery() -> TicketQuery {
        var query = TicketQuery()
        switch choice("status", ["active", "cancelled"]) {
        case "active": query.status = .active
        case "cancelled": query.status = .cancelled
        default: break
        }
        switch choice("checkedIn", ["true", "false"]) {
        case "true": query.checkedIn = true
        case "false": query.checkedIn = false
        default: break
        }
        query.search = string("q").value
        query.orderID = checked("orderId") { id in
            AdminIdentifiers.isPlausible(id) ? .success(id) : .failure(FieldRules.Problem(message: "must be an order id (orderId)"))
        }.value
        query.updatedSince = instant("updatedSince")
        query.cursor = decimal("cursor", maxDigits: 18, problem: "must be a cursor from a previous page")
        query.limit = integer("limit", in: 1...500, default: 50)
        query.unreadable = unreadable
        return query
    }
}

extension AdminInput {
    /// An event's orders list's query parameters.
    mutating func orderQuery() -> OrderQuery {
        var query = OrderQuery()
        query.cursor = string("cursor").value
        query.limit = integer("limit", in: 1...500, default: 50)
        query.unreadable = unreadable
        return query
    }
}
