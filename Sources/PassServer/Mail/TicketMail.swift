import Foundation
import Mail
import PassBundle

/// The email that brings attendees their ticket, written from the texts of the event's pass
/// template (`Passes/<template>/mail/<language>/subject.txt`, `body.txt`, `body.html`) in the
/// ticket's language, else the event's, else English.
///
/// With Google Wallet on, `{{googleWalletURL}}` is the ticket's "Add to Google Wallet" link
/// (`<ticketURL>/google-wallet`, which redirects to Google's save link made then: the email holds
/// no signed token), and `{{#googleWalletURL}}…{{/googleWalletURL}}` sections are kept; with it
/// off the value is empty and the sections are left out.
///
/// Pure: everything a message needs comes in as values (`Ticket`), so the rules are tested
/// without a database or a server.
struct TicketMail: Sendable {
    /// What one message is written from.
    struct Ticket: Sendable, Equatable {
        var serialNumber: String
        var attendeeName: String
        var attendeeEmail: String
        var seat: String?
        /// The ticket's own language; nil: the event's.
        var language: String?
        var eventName: String
        var venue: String
        var startsAt: Date
        var timeZone: String
        var template: String
        var eventLanguage: String
        /// The attendee's page: the ticket's download link.
        var ticketURL: String
    }

    /// The names a text may use as `{{name}}`.
    static let placeholders: Set<String> = [
        "attendeeName", "eventName", "startsAt", "timeZone", "venue", "seat", "ticketURL", "organizationName", "serialNumber",
        "googleWalletURL",
    ]

    /// The parts of one language's texts, below `mail/<language>/`.
    static let parts = (subject: "subject.txt", text: "body.txt", html: "body.html")

    let from: MailAddress
    let replyTo: MailAddress?
    let organizationName: String
    /// Whether tickets are offered for Google Wallet too (GOOGLE_WALLET_ISSUER_ID is set).
    var googleWallet = false

    /// The message for `ticket`, with the texts of `template`, dated `now`.
    func message(for ticket: Ticket, template: Template, now: Date) throws(MailError) -> MailMessage {
        let texts = try Self.texts(of: template)
        guard let (language, text) = Self.pick(ticket.language ?? ticket.eventLanguage, from: texts) else {
            throw MailError(.invalidText, "template \(template.name) has no email texts (mail/<language>/\(Self.parts.subject), …)")
        }
        let values = [
            "attendeeName": ticket.attendeeName, "eventName": ticket.eventName, "venue": ticket.venue, "seat": ticket.seat ?? "—",
            "startsAt": Self.format(ticket.startsAt, timeZone: ticket.timeZone, language: language), "timeZone": ticket.timeZone,
            "ticketURL": ticket.ticketURL, "organizationName": organizationName, "serialNumber": ticket.serialNumber,
            "googleWalletURL": googleWallet ? Self.googleWalletURL(ticketURL: ticket.ticketURL) : "",
        ]
        let rendered = text.render(values)
        return MailMessage(
            from: from, replyTo: replyTo, to: try MailAddress(ticket.attendeeEmail, displayName: ticket.attendeeName),
            subject: rendered.subject, text: rendered.text, html: rendered.html, date: now
        )
    }

    /// The ticket's "Add to Google Wallet" link: the route below its download link.
    static func googleWalletURL(ticketURL: String) -> String {
        (ticketURL.hasSuffix("/") ? String(ticketURL.dropLast()) : ticketURL) + "/google-wallet"
    }

    /// Every language the template has complete texts for, parsed and checked.
    static func texts(of template: Template) throws(MailError) -> [String: MailTemplate] {
        try texts(of: template, parts: parts, placeholders: placeholders)
    }

    /// Every language with any of the files `parts` names (below `mail/<language>/`), each with
    /// all three parsed and checked (a missing or invalid one is an error naming it).
    static func texts(
        of template: Template, parts: (subject: String, text: String, html: String), placeholders: Set<String>,
        lists: [String: Set<String>] = [:]
    ) throws(MailError) -> [String: MailTemplate] {
        let names: Set<String> = [parts.subject, parts.text, parts.html]
        var languages = Set<String>()
        for path in template.mailFiles.keys {
            guard let slash = path.firstIndex(of: "/"), names.contains(String(path[path.index(after: slash)...])) else { continue }
            languages.insert(String(path[..<slash]))
        }
        var texts: [String: MailTemplate] = [:]
        for language in languages.sorted() {
            let file = { (part: String) throws(MailError) -> String in
                guard let bytes = template.mailFiles["\(language)/\(part)"], let text = String(validating: bytes, as: UTF8.self) else {
                    throw MailError(.invalidText, "template \(template.name): mail/\(language)/\(part) is missing or not UTF-8")
                }
                return text
            }
            do {
                texts[language] = try MailTemplate(
                    subject: try file(parts.subject), text: try file(parts.text), html: try file(parts.html), placeholders: placeholders,
                    lists: lists
                )
            } catch {
                throw MailError(.invalidText, "template \(template.name): mail/\(language): \(error.message)")
            }
        }
        return texts
    }

    /// The texts for `language`: exactly, then its primary subtag (`pt` for `pt-BR`), then
    /// English, then the first language there is.
    static func pick(_ language: String, from texts: [String: MailTemplate]) -> (String, MailTemplate)? {
        let primary = String(language.prefix { $0 != "-" })
        for candidate in [language, primary, "en"] {
            if let text = texts[candidate] { return (candidate, text) }
        }
        return texts.keys.sorted().first.flatMap { key in texts[key].map { (key, $0) } }
    }

    /// The date and time in the event's time zone, written as `language` writes them
    /// (`Monday, March 1, 2027 at 7:00 PM`, `2027年3月1日月曜日 19:00`).
    static func format(_ date: Date, timeZone: String, language: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language)
        formatter.timeZone = TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0)
        formatter.dateStyle = .full
        formatter.timeStyle = .short
        return formatter.string(from: date)
    }
}
