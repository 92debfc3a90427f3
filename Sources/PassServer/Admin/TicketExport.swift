import Foundation
import HTTPServer
import PassBundle
import Storage
import Synchronization

/// `GET /admin/v1/events/{eventId}/tickets.csv`: every ticket of an event as CSV, streamed a page
/// at a time (memory stays at one page of `pageSize` tickets however large the event).
///
/// The first columns are those the batch import reads (the template's columns, then its declared
/// extra fields), so an export imports again as it is; the rest is what the server knows of each
/// ticket, which the import skips. Pages are read one after the other as the client reads: a
/// ticket issued or changed during a long export may or may not appear in it. A viewer's export
/// has no `downloadURL` column (a link is the attendee's pass, barcode included).
final class TicketExport: Sendable {
    /// Columns the server fills in; the import skips them.
    static let reportedColumns = [
        "serialNumber", "status", "voidReason", "downloadURL", "devices", "devicesUpToDate", "emailStatus", "checkedInAt", "checkInGate", "checkInScanner",
    ]
    static let pageSize = 500

    /// The header: the import's columns, the extra fields of the event's template, the reported columns.
    let columns: [String]

    private struct Cursor {
        var headerSent = false
        var after: Int64 = 0
        var finished = false
    }

    private let admin: AdminController
    private let eventID: String
    private let fields: [TemplateField]
    private let downloadURLs: Bool
    private let cursor = Mutex(Cursor())

    /// An export of the event's tickets; `downloadURLs: false` (a viewer's) leaves out the column.
    init(admin: AdminController, eventID: String, fields: [TemplateField], downloadURLs: Bool) {
        self.admin = admin
        self.eventID = eventID
        self.fields = fields
        self.downloadURLs = downloadURLs
        columns = TicketImport.columns + fields.map(\.name) + Self.reportedColumns.filter { downloadURLs || $0 != "downloadURL" }
    }

    /// The streamed response.
    var response: Response {
        .streamed(
            headers: [
                "Content-Type": "text/csv; charset=utf-8; header=present",
                "Content-Disposition": "attachment; filename=\"tickets-\(eventID).csv\"",
                "Cache-Control": "private, no-store",
            ],
            BodyStream { [self] in try next() }
        )
    }

    /// The byte order mark and header, then one page of tickets per call, then nil.
    func next() throws -> [UInt8]? {
        try cursor.withLock { (state: inout Cursor) throws -> [UInt8]? in try advance(&state) }
    }

    private func advance(_ cursor: inout Cursor) throws -> [UInt8]? {
        if cursor.finished { return nil }
        if !cursor.headerSent {
            cursor.headerSent = true
            return CSV.byteOrderMark + CSV.record(columns)
        }
        let after = cursor.after
        typealias Page = (
            passes: [StoredPass], devices: [Int64: (devices: Int, upToDate: Int)], emails: [Int64: TicketEmail], checkIns: [Int64: CheckIn],
            orders: [String: StoredOrder]
        )
        let (page, devices, emails, checkIns, orders) = try admin.store.withSession(.read) { session -> Page in
            let page = try session.passes.passes(eventID: eventID, after: after, limit: Self.pageSize)
            guard let first = page.first?.id, let last = page.last?.id else { return (page, [:], [:], [:], [:]) }
            let checkedIn = page.filter { $0.checkedInAt != nil }.map(\.id)
            return (
                page, try session.reach.deviceCounts(eventID: eventID, passIDs: first...last), try session.mail.ticketEmails(passIDs: page.map(\.id)),
                try session.checkIns.checkIns(passIDs: checkedIn), try session.orders.orders(ids: Array(Set(page.compactMap(\.orderID))))
            )
        }
        guard let last = page.last else {
            cursor.finished = true
            return nil
        }
        cursor.after = last.id
        cursor.finished = page.count < Self.pageSize
        var bytes: [UInt8] = []
        for pass in page {
            let order = pass.orderID.flatMap { orders[$0] }
            bytes += CSV.record(try row(pass, order: order, devices: devices[pass.id] ?? (0, 0), email: emails[pass.id], checkIn: checkIns[pass.id]))
        }
        return bytes
    }

    /// One ticket's cells, in `columns` order. The order is named as an upload names it: by the
    /// organizer's id for it, else by its id, so its rows form the same order when imported again.
    private func row(
        _ pass: StoredPass, order: StoredOrder?, devices: (devices: Int, upToDate: Int), email: TicketEmail?, checkIn: CheckIn?
    ) throws -> [String] {
        let imported = [
            pass.attendeeName, pass.attendeeEmail ?? "", pass.seat ?? "", pass.externalID ?? "", pass.language ?? "",
            order.map { $0.externalID ?? $0.id } ?? "", order?.buyerEmail ?? "", order?.buyerName ?? "",
        ]
        let link = downloadURLs ? [try admin.downloadURL(for: pass)] : []
        let reported = [pass.serialNumber.rawValue, TicketBody.status(of: pass), pass.cancellationReason ?? ""] + link
            + [String(devices.devices), String(devices.upToDate), email?.state.rawValue ?? ""]
            + [pass.checkedInAt.map { ISODate.format($0) } ?? "", checkIn?.gate ?? "", checkIn?.scanner ?? ""]
        return imported + fields.map { pass.extra[$0.name]?.text ?? "" } + reported
    }
}

extension AdminController {
    func exportTickets(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        return TicketExport(admin: self, eventID: event.id, fields: templateFields(of: event), downloadURLs: try showsDownloadLinks(request)).response
    }
}
