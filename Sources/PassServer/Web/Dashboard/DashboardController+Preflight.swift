import Foundation
import HTTPServer
import Storage

/// What the dashboard decides from a request's headers alone, before one byte of its body is read
/// (the route's preflight): every form is refused at once without a session, a viewer's form
/// wherever an admin is needed, and an import for an event that does not exist or with a body
/// larger than the import takes. Unauthenticated clients therefore cannot make the server hold
/// their uploads in memory; the refusal is the page the handler would have shown after the body.
///
/// The handlers check the session, the role and the CSRF token again once the body has arrived:
/// the CSRF token travels in the form, and the preflight only narrows who may send one.
extension DashboardController {
    /// A dashboard page answered instead of reading a request's body.
    struct Refusal: RenderableError, CustomStringConvertible {
        var page: Response
        /// What caused it (a storage error, say), for the log; never shown to the client.
        var cause: String

        var status: Int { page.status }
        var errorCode: String { "dashboard_refusal" }
        var errorMessage: String { "The dashboard refused the request." }
        var response: Response { page }
        var description: String { "dashboard refusal \(page.status): \(cause)" }
    }

    /// The body limit of every page and JSON `GET`: none, so a `GET` that declares a body is
    /// refused (413) from its headers instead of being read by whoever asks.
    static let pageBodyLimit = 0
    /// The body limit of the sign-in form: a CSRF value and a token of at most 128 bytes, encoded.
    static let signInBodyLimit = 4 << 10
    /// The body limit of the CSV import: the admin API's upload limit and room for the form's
    /// other fields and multipart framing (the dashboard's forms are `multipart/form-data`).
    static let importBodyLimit = TicketImport.maxBodySize + (256 << 10)

    /// The preflight of a form (`write`): a session that may post here, else the page `write`
    /// would answer after the body (403). `needsAdmin` and `allowingScanner` as for `write`.
    func formPreflight(needsAdmin: Bool = true, allowingScanner: Bool = false) -> Preflight {
        { request in _ = try preflightVisitor(request, needsAdmin: needsAdmin, allowingScanner: allowingScanner) }
    }

    /// The import's preflight: an admin's session, a body within `importBodyLimit` and an event
    /// that exists (404 page), all before the upload is read.
    func importPreflight() -> Preflight {
        { request in
            let visitor = try preflightVisitor(request, needsAdmin: true, allowingScanner: false)
            if let declared = request.headers["Content-Length"], let length = Int(declared.trimmingCharacters(in: .whitespaces)), length > Self.importBodyLimit {
                let tooLarge = HTTPError(status: 413, code: "payload_too_large", message: Self.uploadTooLarge)
                throw Refusal(page: errorPage(tooLarge, visitor: visitor), cause: "upload too large")
            }
            do {
                _ = try organizer.event(id: request.parameters["eventId"])
            } catch {
                throw Refusal(page: errorPage(error, visitor: visitor), cause: "\(error)")
            }
        }
    }

    /// The sign-in form's preflight: its double-submit cookie must be there (the form cannot be
    /// valid without it), else the page `signIn` would answer after the body (403, a fresh form).
    func signInPreflight() -> Preflight {
        { request in
            guard sessions.hasSignInChallenge(request) else {
                throw Refusal(page: signInPage(request, error: Self.staleSignInForm, status: 403), cause: "no sign-in cookie")
            }
        }
    }

    /// The scanner page's JSON calls: the checks of `scanVisitor`, from the headers (the CSRF
    /// token is a header there), answered as JSON like the calls themselves.
    func scanPreflight() -> Preflight {
        { request in _ = try scanVisitor(request, posting: true) }
    }

    static let staleSignInForm = "The sign-in form was out of date. Try again."

    static let uploadTooLarge = "The upload is larger than \(TicketImport.maxBodySize >> 20) MiB, the most an import takes; split the file."

    static let signedOut = HTTPError(
        status: 403, code: "signed_out", message: "You are not signed in (or your session has expired). Sign in again."
    )

    /// The visitor of a form from its headers, or a `Refusal` carrying the page `write` answers.
    func preflightVisitor(_ request: Request, needsAdmin: Bool, allowingScanner: Bool) throws -> DashboardSessions.Visitor {
        let found: DashboardSessions.Visitor?
        do {
            found = try sessions.visitor(request, allowingScanner: allowingScanner)
        } catch {
            throw Refusal(page: errorPage(error, visitor: nil), cause: "\(error)")
        }
        guard let visitor = found else { throw Refusal(page: errorPage(Self.signedOut, visitor: nil), cause: "signed out") }
        if needsAdmin && !visitor.canWrite {
            throw Refusal(page: errorPage(AdminAuthentication.forbidden(visitor.role, needs: .admin), visitor: visitor), cause: "not an admin")
        }
        return visitor
    }
}
