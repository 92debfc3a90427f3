import Foundation
import Logging
import Mail
import Storage

extension Application {
    /// The mail dispatcher, when `SMTP_URL` is set (nil: email is off).
    static func mailDispatcher(
        _ configuration: Configuration, store: any Store, passes: PassService, readiness: Readiness, logger: Logger,
        now: @escaping @Sendable () -> Date
    ) throws -> MailDispatcher? {
        let settings = configuration.mail
        let smtp: SMTPConfiguration
        let addresses: (from: MailAddress, replyTo: MailAddress?)
        do {
            guard let configured = try settings.smtp() else { return nil }
            smtp = configured
            addresses = try settings.addresses()
        } catch {
            throw ConfigurationError(problems: ["SMTP_URL: \(error.message)"])
        }
        let sender = try MailSender(smtp: smtp, rate: settings.rate, now: now)
        let channel = MailChannel(
            store: store, sender: sender,
            policy: MailPolicy(schedule: RetrySchedule(
                baseDelay: settings.retryBaseDelay, maxDelay: settings.retryMaxDelay, maxRetryAge: settings.maxRetryAge
            )),
            mail: TicketMail(
                from: addresses.from, replyTo: addresses.replyTo, organizationName: passes.organizationName,
                googleWallet: configuration.googleWallet.isEnabled
            ),
            orderMail: OrderMail(from: addresses.from, replyTo: addresses.replyTo, organizationName: passes.organizationName),
            templates: passes.templates, ticketURL: { try passes.downloadURL(for: $0) }, orderURL: { try passes.orderURL(for: $0) },
            readiness: readiness, logger: logger, now: now
        )
        logger.notice("email on", ["smtp.url": smtp.url, "mail.from": addresses.from.address, "mail.rate": "\(settings.rate)"])
        return MailDispatcher(
            channel: channel, rate: settings.rate,
            settings: MailDispatcher.settings(
                rate: settings.rate, lease: .seconds(settings.lease ?? 2 * settings.timeout + 30),
                haltPause: TimeInterval(settings.haltPause), drainTimeout: TimeInterval(configuration.http.drainTimeout),
                unreachableGrace: TimeInterval(settings.unreachableGrace)
            ),
            logger: logger, now: now
        )
    }
}
