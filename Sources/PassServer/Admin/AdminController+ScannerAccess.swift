import Foundation
import HTTPServer
import Storage

/// Scanner access for door staff as the admin API shows it (`DoorStaff`): give someone access to
/// one event's scanner page (admin), list an event's accesses with their signed-in phones (viewer),
/// revoke one (admin). The sign-in link's code is in the answer to the `POST` only: it is kept
/// hashed.
extension AdminController {
    /// `POST /admin/v1/events/{eventId}/scanner-access`: `{"name": ..., "expiresAt": ...}` (the
    /// expiry defaults to when the door closes); 201 with the access, its `code` and its `link`.
    func createScannerAccess(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        var input = try AdminInput(request, allowed: ["name", "expiresAt"])
        let name = input.text("name", maxLength: DoorStaff.maxNameLength).value
        let expiresAt = input.date("expiresAt").value
        try input.validate()
        let createdBy = try tokenNames.name(of: request, role: .admin, store: store)
        let created = try doorStaff.create(event: event, name: name, expiresAt: expiresAt, createdBy: createdBy)
        logger.info("scanner access created", ["event.id": event.id, "access.id": "\(created.access.id)", "request.id": request.requestID])
        var body = ScannerAccessBody(created.access, sessions: [], now: now())
        body.code = created.code
        body.link = passes.webServiceURL + "/admin/s/" + created.code
        return .json(body, status: 201, encoder: .api)
    }

    /// `GET /admin/v1/events/{eventId}/scanner-access`: every access of the event, newest first,
    /// with its signed-in phones.
    func listScannerAccess(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        let time = now()
        let items = try doorStaff.list(event: event).map { ScannerAccessBody($0.access, sessions: $0.sessions, now: time) }
        return .json(ScannerAccessListBody(items: items), encoder: .api)
    }

    /// `DELETE /admin/v1/events/{eventId}/scanner-access/{accessId}`: revokes the access; its
    /// link stops working and its phones are signed out at once. 200 with the access (revoking
    /// one already revoked changes nothing).
    func revokeScannerAccess(_ request: Request) throws -> Response {
        let event = try existingEvent(request)
        let access = try doorStaff.revoke(event: event, id: request.parameters["accessId"])
        return .json(ScannerAccessBody(access, sessions: [], now: now()), encoder: .api)
    }
}

struct ScannerAccessBody: Encodable {
    var id: String
    var eventId: String
    var name: String
    var createdBy: String
    var createdAt: String
    var expiresAt: String
    var revokedAt: String?
    /// `active`, `expired` or `revoked`.
    var state: String
    /// The phones signed in with it.
    var sessions: [ScannerSessionBody]
    /// The sign-in link's code and the link (in the answer to its creation only).
    var code: String?
    var link: String?

    init(_ access: ScannerAccess, sessions: [ScannerSession], now: Date) {
        id = String(access.id)
        eventId = access.eventID
        name = access.name
        createdBy = access.createdBy
        createdAt = ISODate.format(access.createdAt)
        expiresAt = ISODate.format(access.expiresAt)
        revokedAt = access.revokedAt.map { ISODate.format($0) }
        state = access.revokedAt != nil ? "revoked" : access.expiresAt <= now ? "expired" : "active"
        self.sessions = sessions.map(ScannerSessionBody.init)
    }
}

struct ScannerSessionBody: Encodable {
    var device: String
    var signedInAt: String
    var lastSeenAt: String
    var expiresAt: String

    init(_ session: ScannerSession) {
        device = session.device
        signedInAt = ISODate.format(session.createdAt)
        lastSeenAt = ISODate.format(session.lastSeenAt)
        expiresAt = ISODate.format(session.expiresAt)
    }
}

struct ScannerAccessListBody: Encodable {
    var items: [ScannerAccessBody]
}
