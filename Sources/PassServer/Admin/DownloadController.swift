import Foundation
import HTTPServer
import Storage

/// `GET /download/{downloadToken}`: the attendee's link to the current signed pass.
struct DownloadController: Sendable {
    let store: any Store
    let passes: PassService

    func register(in router: inout Router) {
        router.get("/download/:downloadToken") { try self.download($0) }
    }

    func download(_ request: Request) throws -> Response {
        guard let token = request.parameters["downloadToken"], AdminIdentifiers.isPlausible(token, lengths: 20...128),
            let pass = try store.pass(downloadTokenHash: TokenVault.hash(token))
        else { throw HTTPError.notFound("No ticket at this link.") }
        let bundle = try passes.bundle(for: pass) {
            guard let eventID = pass.eventID else { return nil }
            return try store.event(id: eventID)
        }
        return Response(
            status: 200,
            headers: [
                "Content-Type": "application/vnd.apple.pkpass",
                "Content-Disposition": "attachment; filename=ticket.pkpass",
                "Last-Modified": HTTPDate.format(epochSeconds: pass.modifiedAt),
                "Cache-Control": "private, no-store",
            ],
            body: bundle
        )
    }
}
