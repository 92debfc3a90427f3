import Foundation
import HTTPServer
import Storage
import Synchronization

/// `GET /admin/v1/events/{eventId}/tickets.csv`: every ticket of an event as CSV, streamed a page
/// at a time (memory stays at one page of `pageSize` tickets however large the event).
///
/// The first columns are those the batch import accepts, so an export imports again as it is;
/// the rest is what the server knows of each ticket. Pages are read one after the other as the
/// client reads: a ticket issued or changed during a long export may or may not appear in it.
final class TicketExport: Sendable {
    /// Columns the import reads, in this order.
    static let importedColumns = ["attendeeName", "attendeeEmail", "seat"]
    /// Columns the server fills in; the import skips them.
    static let reportedColumns = ["serialNumber", "status", "voidReason", "downloadURL", "devices", "devicesUpToDate"]
    static var columns: [String] { importedColumns + reportedColumns }
    static let pageSize = 500

    private struct Cursor {
        var headerSent = false
        var after: Int64 = 0
        var finished = false
    }

    private let admin: AdminController
    private let eventID: String
    private let cursor = Mutex(Cursor())

    init(admin: AdminController, eventID: String) {
        self.admin = admin
        self.eventID = eventID
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
            return CSV.byteOrderMark + CSV.record(Self.columns)
        }
        let after = cursor.after
        let (page, devices) = try admin.store.withSession(.read) { session -> ([StoredPass], [Int64: (devices: Int, upToDate: Int)]) in
            let page = try session.passes(eventID: eventID, after: after, limit: Self.pageSize)
            guard let first = page.first?.id, let last = page.last?.id else { return (page, [:]) }
            return (page, try session.deviceCounts(eventID: eventID, passIDs: first...last))
        }
        guard let last = page.last else {
            cursor.finished = true
            return nil
        }
        cursor.after = last.id
        cursor.finished = page.count < Self.pageSize
        var bytes: [UInt8] = []
        for pass in page {
            bytes += CSV.record(try row(pass, devices: devices[pass.id] ?? (0, 0)))
        }
        return bytes
    }

    /// One ticket's cells, in `columns` order.
    private func row(_ pass: StoredPass, devices: (devices: Int, upToDate: Int)) throws -> [String] {
        [
            pass.attendeeName, pass.attendeeEmail ?? "", pass.seat ?? "",
            pass.serialNumber, TicketBody.status(of: pass), pass.voidReason ?? "", try admin.downloadURL(for: pass) ?? "",
            String(devices.devices), String(devices.upToDate),
        ]
    }
}

extension AdminController {
    func exportTickets(_ request: Request) throws -> Response {
        TicketExport(admin: self, eventID: try existingEvent(request).id).response
    }
}
