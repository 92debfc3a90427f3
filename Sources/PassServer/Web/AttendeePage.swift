import Foundation
import Synchronization

/// The attendee's ticket page at the download link: the event, when and where, whose ticket and
/// which seat, whether it still stands, the "Add to Apple Wallet" button and the pass's barcode as
/// a QR code for phones without Wallet, under a band in the pass's colours with its logo and logo
/// text (the event's design over its template). English or Japanese.
///
/// Everything shown comes from the organizer or the attendee and is escaped; the page has no script
/// (the band is SVG, its colours presentation attributes: the Content-Security-Policy allows no
/// inline style).
enum AttendeePage {
    /// What the page shows.
    struct Ticket: Sendable {
        var organizationName: String
        var eventName: String
        var venue: String
        var startsAt: Date
        var timeZone: String
        var attendeeName: String
        var seat: String?
        var cancelled: Bool
        var cancellationReason: String?
        var serialNumber: String
        /// The bytes of the pass's barcode and the text Wallet shows under it; nil: no barcode.
        var barcode: (bytes: [UInt8], altText: String?)?
        /// Where the button downloads the pass (`/download/{token}?format=pkpass`).
        var passURL: String
        /// The pass's look; nil draws no band.
        var look: Look? = nil
        /// The event is over: the page says so and offers no pass to add.
        var ended = false
        /// Where the "Add to Google Wallet" button leads (`{token}/google-wallet`, relative to the
        /// page); nil: Google Wallet is off and there is no such button.
        var googleWalletURL: String? = nil
        /// The browser is on Android: the Google button comes first.
        var android = false
    }

    /// The colours, logo and logo text of the pass, as the page's band shows them.
    struct Look: Sendable {
        /// As pass.json writes them (`rgb(r, g, b)`).
        var background: String
        var foreground: String
        var logoText: String?
        /// The logo's source (`/images/{id}?scale=2`, or the template's file as a `data:` URL) and
        /// its size in points; nil: no logo.
        var logo: (source: String, width: Int, height: Int)?

        /// The width and height in a PNG's header.
        static func pngSize(_ png: [UInt8]) -> (width: Int, height: Int)? {
            guard png.count > 24, png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
            func word(_ offset: Int) -> Int { png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
            return (word(16), word(20))
        }

        /// The band: the background, the logo fitted into 128 × 40 on the left, the logo text beside it.
        var band: HTML {
            let (width, height) = (320, 64)
            var image = HTML.empty
            var textX = 16
            if let logo, logo.width > 0, logo.height > 0 {
                let scale = min(128.0 / Double(logo.width), 40.0 / Double(logo.height))
                let w = max(1, Int((Double(logo.width) * scale).rounded()))
                let h = max(1, Int((Double(logo.height) * scale).rounded()))
                image = #"<image class="band-logo" href="\#(imageURL: logo.source)" x="16" y="\#((height - h) / 2)" width="\#(w)" height="\#(h)" preserveAspectRatio="xMinYMid meet"/>"#
                textX = 16 + w + 10
            }
            let room = max(4, (width - textX - 12) / 9)
            let text = logoText.map { $0.count > room ? String($0.prefix(room - 1)) + "…" : $0 } ?? ""
            return """
                <div class="ticket-band" id="ticket-band"><svg viewBox="0 0 \(width) \(height)" width="\(width)" height="\(height)" role="img" aria-label="\(logoText ?? "")" \
                xmlns="http://www.w3.org/2000/svg"><rect class="band-fill" width="\(width)" height="\(height)" fill="\(background)"/>\(image)\
                <text class="band-text" x="\(textX)" y="38" fill="\(foreground)" font-size="16" font-weight="600" font-family="system-ui, sans-serif">\(text)</text></svg></div>
                """
        }
    }

    /// The page's texts in one language.
    struct Texts: Sendable {
        let yourTicket, date, venue, attendee, seat, generalAdmission, status, valid, cancelled: String
        let cancelledNotice, endedNotice, reason, addToWallet, walletHint, ticketCode, showAtEntrance, ticketNumber: String
        let addToGoogleWallet, googlePendingTitle, googlePendingText, tryAgain: String
        /// The hint under the buttons when both wallets are offered.
        let bothWalletsHint: String
        let qrLabel: @Sendable (String) -> String
        let notFoundTitle, notFoundText: String
    }

    static let english = Texts(
        yourTicket: "Your ticket", date: "Date", venue: "Venue", attendee: "Attendee", seat: "Seat",
        generalAdmission: "General admission", status: "Status", valid: "Valid", cancelled: "Cancelled",
        cancelledNotice: "This ticket has been cancelled.", endedNotice: "This event has ended.", reason: "Reason:",
        addToWallet: "Add to Apple Wallet", walletHint: "On an iPhone, the ticket then updates by itself when anything changes.",
        ticketCode: "Ticket code", showAtEntrance: "Show this code at the entrance.", ticketNumber: "Ticket number",
        addToGoogleWallet: "Add to Google Wallet", googlePendingTitle: "Almost ready for Google Wallet",
        googlePendingText: "Your ticket is on its way to Google Wallet. Please try again in a minute.", tryAgain: "Try again",
        bothWalletsHint: "In Apple Wallet or Google Wallet, the ticket then updates by itself when anything changes.",
        qrLabel: { "QR code of ticket \($0)" },
        notFoundTitle: "Ticket not found",
        notFoundText: "This link leads to no ticket. It may have been replaced by a newer one: look for the latest email from the organizer."
    )

    static let japanese = Texts(
        yourTicket: "チケット", date: "日時", venue: "会場", attendee: "参加者", seat: "座席",
        generalAdmission: "自由席", status: "ステータス", valid: "有効", cancelled: "キャンセル済み",
        cancelledNotice: "このチケットはキャンセルされました。", endedNotice: "このイベントは終了しました。", reason: "理由：",
        addToWallet: "Apple Walletに追加", walletHint: "iPhoneでは、イベントに変更があるとチケットが自動で更新されます。",
        ticketCode: "チケットコード", showAtEntrance: "入場時にこのコードをご提示ください。", ticketNumber: "チケット番号",
        addToGoogleWallet: "Google ウォレットに追加", googlePendingTitle: "Google ウォレットの準備中です",
        googlePendingText: "チケットを Google ウォレットに送っています。1分ほどしてからもう一度お試しください。", tryAgain: "もう一度試す",
        bothWalletsHint: "Apple Wallet でも Google ウォレットでも、イベントに変更があるとチケットが自動で更新されます。",
        qrLabel: { "チケット \($0) のQRコード" },
        notFoundTitle: "チケットが見つかりません",
        notFoundText: "このリンクのチケットはありません。新しいリンクに置き換えられた可能性があります。主催者からの最新のメールをご確認ください。"
    )

    /// The texts for `language` (`en` or `ja`; English for anything else).
    static func texts(_ language: String) -> Texts { language == "ja" ? japanese : english }

    /// The page's languages, English first (the fallback).
    static let languages = ["en", "ja"]

    /// The language of the page for a request's `Accept-Language`.
    static func language(acceptLanguage: String?) -> String {
        ContentNegotiation.language(acceptLanguage: acceptLanguage, available: languages, fallback: "en")
    }

    /// The whole page.
    static func render(_ ticket: Ticket, language: String) -> HTML {
        let text = texts(language)
        var notice = HTML.empty
        if ticket.cancelled {
            let reason: HTML? = ticket.cancellationReason.flatMap { $0.isEmpty ? nil : "<p>\(text.reason) <span class=\"reason\">\($0)</span></p>" }
            notice = """
                <div class="notice notice-bad" role="status"><p><strong>\(text.cancelledNotice)</strong></p>\(reason)</div>

                """
        } else if ticket.ended {
            notice = """
                <div class="notice" role="status"><p><strong>\(text.endedNotice)</strong></p></div>

                """
        }
        // A cancelled ticket's pass, or an ended event's, is of no more use in Wallet.
        var buttons: [HTML] = [#"<a class="button" href="\#(url: ticket.passURL)">\#(text.addToWallet)</a>"#]
        if let google = ticket.googleWalletURL {
            let button: HTML = #"<a class="button button-google" href="\#(url: google)">\#(text.addToGoogleWallet)</a>"#
            if ticket.android { buttons.insert(button, at: 0) } else { buttons.append(button) }
        }
        let wallet: HTML = ticket.ended || ticket.cancelled ? .empty : """
            <p class="wallet">\(HTML(joining: buttons))</p>
            <p class="muted">\(ticket.googleWalletURL == nil ? text.walletHint : text.bothWalletsHint)</p>

            """
        let seat = ticket.seat.flatMap { $0.isEmpty ? nil : $0 } ?? text.generalAdmission
        var code = HTML.empty
        // A cancelled ticket admits no one: no code to show at the door.
        if !ticket.cancelled, let barcode = ticket.barcode, let qr = try? QRCode(bytes: barcode.bytes) {
            code = """
                <section class="code" aria-labelledby="code-heading">
                <h2 id="code-heading">\(text.ticketCode)</h2>
                <figure class="qr">\(qr.svg(label: text.qrLabel(ticket.serialNumber)))
                <figcaption>\(text.showAtEntrance)<br>\(text.ticketNumber): <span class="serial">\(barcode.altText ?? ticket.serialNumber)</span></figcaption>
                </figure>
                </section>

                """
        }
        let body: HTML = """
            <main class="ticket">
            \(ticket.look?.band)<p class="muted">\(ticket.organizationName)</p>
            <h1>\(ticket.eventName)</h1>
            \(notice)<dl class="facts">
            <div><dt>\(text.date)</dt><dd><time datetime="\(ISODate.format(ticket.startsAt))">\(formattedDate(ticket.startsAt, timeZone: ticket.timeZone, language: language))</time> <span class="muted">(\(ticket.timeZone))</span></dd></div>
            <div><dt>\(text.venue)</dt><dd>\(ticket.venue)</dd></div>
            <div><dt>\(text.attendee)</dt><dd class="attendee">\(ticket.attendeeName)</dd></div>
            <div><dt>\(text.seat)</dt><dd>\(seat)</dd></div>
            <div><dt>\(text.status)</dt><dd class="\(ticket.cancelled ? "status-bad" : "status-ok")">\(ticket.cancelled ? text.cancelled : text.valid)</dd></div>
            </dl>
            \(wallet)\(code)</main>
            """
        return HTML.document(title: "\(ticket.eventName) — \(text.yourTicket)", language: language, body: body)
    }

    /// The page for a link that leads to no ticket.
    static func notFound(language: String) -> HTML {
        let text = texts(language)
        return HTML.document(
            title: text.notFoundTitle, language: language,
            body: "<main class=\"ticket\">\n<h1>\(text.notFoundTitle)</h1>\n<p>\(text.notFoundText)</p>\n</main>"
        )
    }

    /// The page for a ticket Google does not have yet (its "Add to Google Wallet" link answers it
    /// with a 503): retrying is the same link, relative to the page.
    static func googlePending(language: String) -> HTML {
        let text = texts(language)
        return HTML.document(
            title: text.googlePendingTitle, language: language,
            body: """
                <main class="ticket">
                <h1>\(text.googlePendingTitle)</h1>
                <p>\(text.googlePendingText)</p>
                <p class="wallet"><a class="button" href="google-wallet">\(text.tryAgain)</a></p>
                </main>
                """
        )
    }

    /// Whether a `User-Agent` is an Android browser's.
    static func isAndroid(userAgent: String?) -> Bool {
        userAgent?.range(of: "Android", options: .caseInsensitive) != nil
    }

    /// The start as `language` writes a date and time (`Monday, March 1, 2027 at 7:00 PM`,
    /// `2027年3月1日月曜日 19:00`) in the event's time zone, as the ticket email writes it.
    ///
    /// Formatters are made once per language and zone: making one costs more than the whole page.
    static func formattedDate(_ date: Date, timeZone: String, language: String) -> String {
        let key = language + " " + timeZone
        // Formatting under the lock: a formatter is not documented safe to share between threads
        // here, and formatting takes microseconds.
        return formatters.withLock { cache in
            if let formatter = cache[key] { return formatter.string(from: date) }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: language)
            formatter.timeZone = TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0)
            formatter.dateStyle = .full
            formatter.timeStyle = .short
            // A zone per event and two languages; bounded anyway.
            if cache.count >= 256 { cache.removeAll() }
            cache[key] = formatter
            return formatter.string(from: date)
        }
    }

    private static let formatters = Mutex<[String: DateFormatter]>([:])
}
