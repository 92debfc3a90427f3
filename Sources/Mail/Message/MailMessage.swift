import ByteEncoding
import Certificates
public import Foundation

/// One message to one recipient, in plain text and HTML (`multipart/alternative`).
///
/// `rendered()` writes RFC 5322 with CRLF line ends: every header built from `HeaderText` and
/// `MailAddress` (one line each, encoded when not plain), each part UTF-8 in base64 lines of 76
/// characters, so no body line can be mistaken for the end of the message or a header.
public struct MailMessage: Sendable, Equatable {
    public var from: MailAddress
    public var replyTo: MailAddress?
    public var to: MailAddress
    public var subject: String
    public var text: String
    public var html: String
    public var date: Date
    /// Without angle brackets: `random@domain`.
    public var messageID: String

    public init(
        from: MailAddress, replyTo: MailAddress? = nil, to: MailAddress, subject: String, text: String, html: String, date: Date,
        messageID: String? = nil
    ) {
        self.from = from
        self.replyTo = replyTo
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.date = date
        self.messageID = messageID ?? "\(Self.randomHex(16))@\(from.domain)"
    }

    /// The whole message. `boundary` separates the parts (random by default; it cannot occur in
    /// base64, which has no `=_`).
    public func rendered(boundary: String = "=_part_" + MailMessage.randomHex(12)) -> [UInt8] {
        var headers = [
            "From: \(from.headerValue)",
        ]
        if let replyTo { headers.append("Reply-To: \(replyTo.headerValue)") }
        headers += [
            "To: \(to.headerValue)",
            "Subject: \(HeaderText.encoded(subject))",
            "Date: \(Self.format(date))",
            "Message-ID: <\(messageID)>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
        ]
        var message = headers.joined(separator: "\r\n") + "\r\n\r\n"
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            message += "--\(boundary)\r\n"
            message += "Content-Type: \(type); charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            message += Data(Self.crlf(body).utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
            message += "\r\n"
        }
        message += "--\(boundary)--\r\n"
        return Array(message.utf8)
    }

    /// Line ends as CRLF (a text part's canonical form).
    static func crlf(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
    }

    /// RFC 5322 date-time in UTC: `Mon, 01 Mar 2027 10:00:00 +0000`.
    static func format(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let day = days[((parts.weekday ?? 1) - 1) % 7]
        let month = months[((parts.month ?? 1) - 1) % 12]
        let two = { (value: Int?) in String(format: "%02d", value ?? 0) }
        return "\(day), \(two(parts.day)) \(month) \(parts.year ?? 1970) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) +0000"
    }

    /// `count` random bytes in hex.
    public static func randomHex(_ count: Int) -> String {
        Hex.encode(SecureRandom.bytes(count))
    }
}
