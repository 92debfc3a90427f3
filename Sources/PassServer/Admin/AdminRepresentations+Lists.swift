import Foundation
import Storage

/// A page of the events list.
struct EventListBody: Encodable {
    var events: [EventBody]
    var nextCursor: String?
}

/// The answer to a batch of new tickets: every row's ticket, in the order uploaded, with what a
/// mailing needs (the full ticket is `GET /admin/v1/tickets/{serialNumber}`).
struct TicketBatchBody: Encodable {
    /// Tickets this upload issued.
    var created: Int
    /// Rows whose `externalId` the event already had: the ticket returned is the existing one.
    var existing: Int
    /// With `notify=true`: the new tickets whose email was queued (those with an address).
    var emailsQueued: Int?
    var tickets: [Entry]

    struct Entry: Encodable {
        var row: Int
        /// `created` or `existing`.
        var outcome: String
        var serialNumber: String
        var externalId: String?
        var attendeeName: String
        var status: String
        var downloadURL: String?
        /// The order the ticket was issued in (`GET /admin/v1/orders/{orderId}`).
        var orderId: String?

        init(row: Int, outcome: String, pass: StoredPass, downloadURL: String?) {
            self.row = row
            self.outcome = outcome
            serialNumber = pass.serialNumber.rawValue
            externalId = pass.externalID
            attendeeName = pass.attendeeName
            status = TicketBody.status(of: pass)
            self.downloadURL = downloadURL
            orderId = pass.orderID
        }
    }
}

/// The 400 body of a batch with invalid rows: the usual error object plus every problem.
struct InvalidRowsBody: Encodable {
    var error: Detail

    struct Detail: Encodable {
        var code: String
        var message: String
        var problems: [Problem]
    }

    struct Problem: Encodable, Equatable {
        var row: Int
        /// The field (JSON) or column (CSV); absent when the row as a whole is unreadable.
        var field: String?
        var problem: String
    }
}
