import Foundation
import PassBundle
import PassIdentifiers
import Storage

extension PassService {
    /// Renders and validates pass.json of `pass` with `event`, as a download would, without
    /// signing. Throws the `PassBundleError` (or `PassServiceError`) a download would hit.
    func validate(_ pass: StoredPass, event: Event) throws {
        try validate(ticketData(for: pass, event: event), event: event)
    }

    /// Renders and validates pass.json of a sample ticket of `event`: what every ticket of the
    /// event shares (name, venue, dates in its time zone, template) must make a valid pass.
    func validate(event: Event) throws {
        guard let passType, let serial = SerialNumber("sample-ticket") else { throw PassServiceError("stored pass has an invalid identifier") }
        let sample = try ticketData(
            passTypeIdentifier: passType, serialNumber: serial, attendeeName: "Sample Attendee",
            seat: nil, cancelled: false, cancellationReason: nil, event: event
        )
        try validate(sample, event: event)
    }

    private func validate(_ data: TicketData, event: Event) throws {
        let (template, design) = try designedTemplate(for: event)
        _ = try PassBundle.renderPassJSON(template: template, data: data, design: design, signer: signer, options: options)
    }
}
