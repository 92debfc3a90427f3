import PassIdentifiers
import Foundation
import HTTPServer
import Storage

extension AdminController {
    /// `POST /admin/v1/tickets/{serialNumber}/download-link`: the ticket gets a new download link
    /// and the previous one answers 404 from then on (a link that leaked can be withdrawn). The
    /// pass itself does not change, so no push is sent.
    func rotateDownloadLink(_ request: Request) throws -> Response {
        let pass = try existingTicket(request)
        let input = try AdminInput(request, allowed: [], bodyRequired: false)
        try input.validate()
        return .json(try rotateDownloadLink(pass, requestID: request.requestID), encoder: .api)
    }

    /// Gives the ticket a new download link; the previous one answers 404 from then on.
    func rotateDownloadLink(_ pass: StoredPass, requestID: String) throws -> TicketBody {
        let (passType, serial) = (pass.passTypeIdentifier, pass.serialNumber)
        let vault = passes.vault
        let rotated = try store.withSession(.write) { session in
            try session.rotateDownloadToken(passTypeIdentifier: passType, serialNumber: serial) { nonce in
                try TokenVault.hash(vault.downloadToken(passType: passType, serial: serial, nonce: nonce))
            }
        }
        guard let rotated else { throw HTTPError.notFound("No such ticket.") }
        logger.info("download link rotated", ["pass.serial": rotated.serialNumber.rawValue, "request.id": requestID])
        return try ticketBody(rotated)
    }

    /// `PUBLIC_URL/download/{token}` for the pass's current link.
    func downloadURL(for pass: StoredPass) throws -> String {
        try passes.downloadURL(for: pass)
    }
}
