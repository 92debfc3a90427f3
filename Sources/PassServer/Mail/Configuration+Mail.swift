import Mail

extension Configuration.Mail {
    /// The SMTP server to use; nil while email is off.
    func smtp() throws(MailError) -> SMTPConfiguration? {
        guard let smtpURL else { return nil }
        var smtp = try SMTPConfiguration(url: smtpURL, password: smtpPassword, allowPlaintext: allowPlaintext, caFile: caFile)
        smtp.messageTimeout = .seconds(timeout)
        smtp.connectTimeout = .seconds(min(timeout, 15))
        return smtp
    }

    /// `MAIL_FROM` and `MAIL_REPLY_TO` as addresses (checked when loaded).
    func addresses() throws(MailError) -> (from: MailAddress, replyTo: MailAddress?) {
        guard let from else { throw MailError(.invalidConfiguration, "MAIL_FROM is not set") }
        return (try MailAddress.parse(from), try replyTo.map { text throws(MailError) in try MailAddress.parse(text) })
    }
}
