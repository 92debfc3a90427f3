import Foundation
import Storage

/// The organizer's values as the admin API shows them.
extension EventBody {
    /// The event with its counts, reach, check-ins and email states.
    init(_ details: EventDetails) {
        self.init(details.event, tally: details.tally)
        emailStatus = EmailCountsBody(details.emails)
        counts?.checkedIn = details.checkedIn
        reach?.googleWalletSaved = details.googleWalletSaved
    }
}

extension EventUpdateBody {
    init(_ update: EventUpdate) {
        self.init(event: EventBody(update.event), job: update.job.map { .init(id: $0.id, state: $0.state.rawValue, total: $0.total) })
    }
}

extension TicketBody {
    /// The ticket with what became of its email.
    init(_ ticket: Ticket, downloadURL: String?) {
        self.init(ticket.pass, downloadURL: downloadURL)
        emailStatus = ticket.email.map(EmailStatusBody.init)
        checkIn = ticket.checkIn.map(CheckInBody.init)
    }

    /// The ticket with its devices, their state, the latest pushes to them and the prunes.
    init(_ details: TicketDetails, downloadURL: String?) throws {
        self.init(details.ticket, downloadURL: downloadURL)
        servedRevision = details.ticket.pass.servedRevision
        servedAt = details.ticket.pass.servedAt.map { ISODate.format($0) }
        registeredDevices = details.devices.count
        devices = try details.devices.map(DeviceBody.init)
        latestPushes = details.pushes.map(PushBody.init)
        prunedRegistrations = details.prunes.map(PruneBody.init)
        undoneCheckIns = details.undoneCheckIns.map(UndoneCheckInBody.init)
        if details.googleWalletEnabled { googleWallet = GoogleWalletTicketBody(details.googleWallet) }
    }
}

/// A ticket's check-in as the API shows it.
struct CheckInBody: Encodable {
    var checkedInAt: String
    var gate: String?
    /// The name of the scanner's token.
    var scanner: String?

    init(_ record: CheckIn) {
        checkedInAt = ISODate.format(record.checkedInAt)
        gate = record.gate
        scanner = record.scanner
    }
}

/// A check-in that was undone, with who undid it and when.
struct UndoneCheckInBody: Encodable {
    var checkedInAt: String
    var gate: String?
    var scanner: String?
    var undoneAt: String
    /// The name of the admin token that undid it.
    var undoneBy: String

    init(_ undone: UndoneCheckIn) {
        checkedInAt = ISODate.format(undone.checkedInAt)
        gate = undone.gate
        scanner = undone.scanner
        undoneAt = ISODate.format(undone.undoneAt)
        undoneBy = undone.undoneBy
    }
}

extension TicketBatchBody {
    init(_ result: TicketImportResult, downloadURL: (StoredPass) throws -> String) throws {
        let entries = try result.entries.map { entry in
            Entry(row: entry.row, outcome: entry.created ? "created" : "existing", pass: entry.pass, downloadURL: try downloadURL(entry.pass))
        }
        self.init(created: result.created, existing: result.existing, emailsQueued: result.emailsQueued, tickets: entries)
    }
}

extension InvalidRowsBody.Problem {
    init(_ issue: RowIssue) {
        self.init(row: issue.row, field: issue.field, problem: issue.message)
    }
}
