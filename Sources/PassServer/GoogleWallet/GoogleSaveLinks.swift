import Foundation
import GoogleWallet
import PassIdentifiers

/// The "Add to Google Wallet" links of tickets whose objects are at Google: Google's save URL with
/// a JWT signed by the service account that names only the object (no holder, no barcode), made
/// when the attendee asks for it, for our origin.
struct GoogleSaveLinks: Sendable {
    let client: GoogleWalletClient
    let tickets: GoogleTickets
    /// PUBLIC_URL's origin (`https://tickets.example.org`): where the button that leads to the link is.
    let origin: String

    init(client: GoogleWalletClient, tickets: GoogleTickets, publicURL: URL) {
        self.client = client
        self.tickets = tickets
        origin = Self.origin(of: publicURL)
    }

    /// `scheme://host[:port]` of `url`, lowercased as browsers send `Origin`.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "https"
        var origin = "\(scheme)://\(url.host?.lowercased() ?? "")"
        if let port = url.port, port != (scheme == "https" ? 443 : 80) { origin += ":\(port)" }
        return origin
    }

    /// The save link of the ticket `serial`, issued `now`.
    func link(serial: SerialNumber, now: Date) throws(GoogleWalletError) -> String {
        try client.saveLink(objectIDs: [tickets.objectID(serial: serial)], origins: [origin], issuedAt: now)
    }
}

extension GoogleWalletDispatcher {
    /// The save links of this dispatcher's objects.
    func saveLinks(publicURL: URL) -> GoogleSaveLinks {
        GoogleSaveLinks(client: channel.sender.client, tickets: channel.tickets, publicURL: publicURL)
    }
}
