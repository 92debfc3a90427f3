import Foundation
import PassBundle
import Storage

extension PassService {
    /// The pass's first barcode as its template renders it for `pass` (what Wallet shows), or nil
    /// when the template has none. Renders pass.json without signing: microseconds.
    func barcode(for pass: StoredPass, event: Event) throws -> PassDefinition.Barcode? {
        let template = try templates.template(named: event.template)
        let values = try ticketData(for: pass, event: event)
            .templateValues(passTypeIdentifier: signer.passTypeIdentifier, teamIdentifier: signer.teamIdentifier)
        return try PassDefinition.decode(template.render(values)).barcodes?.first
    }
}

extension PassDefinition.Barcode {
    /// The bytes a reader of Wallet's barcode gets: `message` in `messageEncoding` (ISO-8859-1 in
    /// most passes), or UTF-8 when that encoding cannot write it.
    var messageBytes: [UInt8] {
        switch messageEncoding.lowercased() {
        case "iso-8859-1", "latin1", "iso_8859-1":
            let scalars = message.unicodeScalars
            guard scalars.allSatisfy({ $0.value <= 0xFF }) else { return Array(message.utf8) }
            return scalars.map { UInt8($0.value) }
        default:
            return Array(message.utf8)
        }
    }
}
