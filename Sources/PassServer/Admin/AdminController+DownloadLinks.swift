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
        return .json(try ticketBody(try organizer.rotateDownloadLink(pass, requestID: request.requestID)), encoder: .api)
    }
}
