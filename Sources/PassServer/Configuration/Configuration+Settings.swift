import APNs
import Foundation
import GoogleWallet
import Logging
import Mail
import PassBundle

extension Configuration {
    /// Every configuration key, in the order of the README table.
    public static let settings: [Setting] = [
        .boolean("DEVELOPMENT", "Development defaults for whatever is unset: certificates from `pass-server certs dev`, PUBLIC_URL http://HTTP_HOST:HTTP_PORT, APNS_MODE log, a generated TOKEN_SECRET in .data/", default: "false", at: \.development),
        .text("HTTP_HOST", "Address to listen on", default: "127.0.0.1", at: \.http.host),
        .integer("HTTP_PORT", "Port to listen on; 0 picks a free one", default: "8080", in: 0...65_535, at: \.http.port),
        Setting("PUBLIC_URL", "Externally visible https base URL: webServiceURL in passes, base of download links", default: nil) {
            config, raw throws(SettingProblem) in
            let text = try Parse.nonEmpty(raw)
            guard let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text),
                let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil,
                url.query == nil, url.fragment == nil
            else { throw SettingProblem("'\(raw)' is not an absolute http(s) URL without query") }
            config.http.publicURL = url
        },
        .boolean("ALLOW_HTTP_PUBLIC_URL", "Accept an http:// PUBLIC_URL (development only; Wallet requires https)", default: "false", at: \.http.allowInsecurePublicURL),
        .integer("HTTP_MAX_BODY_SIZE", "Largest request body in bytes (device endpoints: 64 KiB)", default: "1048576", in: 1_024...(64 << 20), at: \.http.maxBodySize),
        .seconds("HTTP_CONNECTION_TIMEOUT", "A connection that sends nothing for this long is closed", default: "30s", in: 1...3_600, at: \.http.connectionTimeout),
        .seconds("HTTP_REQUEST_TIMEOUT", "A whole request (headers and body) must arrive within this, however steadily it trickles", default: "30s", in: 1...3_600, at: \.http.requestTimeout),
        .integer("HTTP_MAX_CONNECTIONS", "Most connections open at once; more are closed at once", default: "1024", in: 1...100_000, at: \.http.maxConnections),
        .integer("HTTP_MAX_CONNECTIONS_PER_CLIENT", "Most connections one client address may hold; TRUSTED_PROXIES are exempt", default: "32", in: 1...100_000, at: \.http.maxConnectionsPerClient),
        Setting("TRUSTED_PROXIES", "Comma-separated CIDRs of reverse proxies whose X-Forwarded-For is believed (`none` for none); the client is the rightmost address not in the list", default: "127.0.0.0/8,::1/128") {
            config, raw throws(SettingProblem) in
            config.http.trustedProxies = try Parse.addressRanges(raw)
        },
        .integer("HTTP_THREADS", "Request threads; 0 means 4 per core", default: "0", in: 0...1_024, at: \.http.threads),
        .seconds("SHUTDOWN_DRAIN_TIMEOUT", "On SIGTERM/SIGINT, how long in-flight requests and pushes may finish", default: "10s", in: 0...600, at: \.http.drainTimeout),
        Setting("DATABASE_URL", "postgres://user:pass@host:port/db or sqlite:///absolute/path (sqlite://relative/path)", default: "sqlite://.data/pass-server.sqlite") {
            config, raw throws(SettingProblem) in
            let text = try Parse.nonEmpty(raw)
            let lowered = text.lowercased()
            guard lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") || lowered.hasPrefix("sqlite://") else {
                throw SettingProblem("must start with postgres://, postgresql:// or sqlite://")
            }
            guard !lowered.hasPrefix("sqlite://") || text.count > "sqlite://".count else {
                throw SettingProblem("names no SQLite file")
            }
            config.database.url = text
        },
        .integer("DATABASE_POOL_SIZE", "PostgreSQL connections per process; 0 means 2 per core + 2", default: "0", in: 0...500, at: \.database.poolSize),
        .seconds("DATABASE_STATEMENT_TIMEOUT", "PostgreSQL statement_timeout", default: "15s", in: 1...3_600, at: \.database.statementTimeout),
        .boolean("MIGRATE_ON_START", "`serve` applies pending migrations before listening (`--no-migrate` turns it off)", default: "true", at: \.database.migrateOnStart),
        Setting("LOG_LEVEL", "trace, debug, info, notice, warning, error or critical", default: "info") { config, raw throws(SettingProblem) in
            guard let level = LogLevel(name: raw.trimmingCharacters(in: .whitespaces)) else {
                throw SettingProblem("'\(raw)' is not one of \(LogLevel.allCases.map(\.description).joined(separator: ", "))")
            }
            config.logLevel = level
        },
        Setting("TOKEN_SECRET", "≥ 32 random bytes (hex or base64); pass and download tokens and the signed barcodes derive from it. Never rotate", default: nil, secret: true) {
            config, raw throws(SettingProblem) in
            config.tokenSecret = try Parse.secret(raw)
        },
        .text("PASSES_DIR", "Directory of pass templates", default: "Passes", at: \.passesDirectory),
        .text("PASS_CERTIFICATE", "Pass Type ID certificate (PEM)", default: nil, at: \.signing.certificate),
        .text("PASS_PRIVATE_KEY", "Its private key (PEM, optionally encrypted)", default: nil, at: \.signing.privateKey),
        Setting("PASS_PRIVATE_KEY_PASSWORD", "Password of an encrypted PASS_PRIVATE_KEY", default: nil, secret: true) { config, raw throws(SettingProblem) in
            config.signing.privateKeyPassword = raw
        },
        .text("PASS_P12", "Certificate and key as one .p12 (instead of the two PEM files)", default: nil, at: \.signing.p12),
        Setting("PASS_P12_PASSWORD", "Password of PASS_P12", default: nil, secret: true) { config, raw throws(SettingProblem) in
            config.signing.p12Password = raw
        },
        .text("WWDR_CERTIFICATE", "Apple WWDR intermediate (G4), PEM or DER", default: nil, at: \.signing.wwdrCertificate),
        .text("PASS_TYPE_IDENTIFIER", "Pass type identifier; must equal the certificate's UID", default: "certificate UID", at: \.signing.passTypeIdentifier),
        .text("TEAM_IDENTIFIER", "Team identifier; must equal the certificate's OU", default: "certificate OU", at: \.signing.teamIdentifier),
        .text("ORGANIZATION_NAME", "organizationName of every pass, shown in Wallet and on the lock screen; required outside development (DEVELOPMENT uses PassServer)", default: nil, at: \.signing.organizationName),
        Setting("PASS_NFC_READER_KEY", "Set only when Apple enabled the pass type certificate for NFC: the readers' public key as Base64 of its P-256 SubjectPublicKeyInfo (what `openssl ec -pubout -outform DER` writes, in Base64); events may then turn on NFC entry and posters (docs/poster-event-tickets.md). Unset: passes carry no nfc", default: nil) {
            config, raw throws(SettingProblem) in
            let key = raw.trimmingCharacters(in: .whitespaces)
            guard WalletEventDetails.isP256PublicKey(key) else {
                throw SettingProblem("is not the Base64 of an X.509 SubjectPublicKeyInfo holding a P-256 public key")
            }
            config.signing.nfcReaderKey = key
        },
        Setting("APNS_MODE", "live sends pushes over HTTP/2; log only logs them", default: "live") { config, raw throws(SettingProblem) in
            guard let mode = APNSMode(rawValue: raw.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw SettingProblem("'\(raw)' is not live or log")
            }
            config.apns.mode = mode
        },
        Setting("APNS_URL", "APNs base URL (production; the sandbox never delivers pass updates, and `serve` warns about it)", default: "https://api.push.apple.com") {
            config, raw throws(SettingProblem) in
            let text = try Parse.nonEmpty(raw)
            guard let url = URL(string: text), url.scheme?.lowercased() == "https", url.host != nil else {
                throw SettingProblem("'\(raw)' is not an https URL")
            }
            config.apns.url = text
        },
        .text("APNS_CA_FILE", "Extra CA certificate (PEM) trusted for the APNs server, besides the system store", default: nil, at: \.apns.caFile),
        .integer("APNS_CONNECTIONS", "HTTP/2 connections to APNs", default: "2", in: 1...64, at: \.apns.connections),
        .seconds("APNS_EXPIRATION", "apns-expiration: how long APNs keeps trying an offline device", default: "3d", in: 0...(30 * 86_400), at: \.apns.expiration),
        .seconds("APNS_REQUEST_TIMEOUT", "A push not answered within this is retried", default: "30s", in: 1...600, at: \.apns.requestTimeout),
        Setting("APNS_PUSH_TYPE", "apns-push-type: background (held to the phone's background budget) or alert", default: "background") {
            config, raw throws(SettingProblem) in
            guard let pushType = APNSPushType(rawValue: raw.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw SettingProblem("'\(raw)' is not background or alert")
            }
            config.apns.pushType = pushType
        },
        Setting("APNS_PRIORITY", "apns-priority: 5 (power-aware) or 10 (immediately; needs APNS_PUSH_TYPE=alert)", default: "5") {
            config, raw throws(SettingProblem) in
            guard let number = Int(raw.trimmingCharacters(in: .whitespaces)), let priority = APNSPriority(rawValue: number) else {
                throw SettingProblem("'\(raw)' is not 5 or 10")
            }
            config.apns.priority = priority
        },
        .seconds("APNS_UNREACHABLE_GRACE", "While pushes are pending, how long APNs may be unreachable before /readyz answers 503", default: "60s", in: 1...86_400, at: \.apns.unreachableGrace),
        .seconds("PUSH_MAX_RETRY_AGE", "Retryable pushes (429, 5xx, connection loss) give up after this long", default: "1d", in: 60...(30 * 86_400), at: \.push.maxRetryAge),
        .integer("PUSH_BATCH_SIZE", "Outbox rows claimed per dispatcher round", default: "500", in: 1...10_000, at: \.push.batchSize),
        .integer("PUSH_CONCURRENCY", "Pushes in flight at once (claimed and not yet answered), over all APNs connections", default: "1000", in: 1...10_000, at: \.push.concurrency),
        .seconds("PUSH_HALT_PAUSE", "After APNs rejects our credentials or topic (403; 400 BadTopic, TopicDisallowed, MissingTopic), pause all sending this long, then probe with one push", default: "5m", in: 1...86_400, at: \.push.haltPause),
        .seconds("PUSH_LEASE", "How long a claimed push belongs to its process; a crashed process's pushes are resent after it", default: "2 × APNS_REQUEST_TIMEOUT + 30s", in: 2...3_600, at: \.push.lease),
        .integer("JOB_BATCH_SIZE", "Passes bumped per re-push batch (one transaction; a crash resumes after the last committed batch)", default: "500", in: 1...50_000, at: \.jobs.batchSize),
        .seconds("JOB_LEASE", "A re-push job whose runner stopped answering is resumed by another runner after this long", default: "60s", in: 1...3_600, at: \.jobs.lease),
        .seconds("PUSH_LOG_RETENTION", "push_log entries and failed pushes and emails older than this are deleted", default: "30d", in: 3_600...(3_650 * 86_400), at: \.retention.pushLog),
        .seconds("JOB_RETENTION", "Finished re-push jobs are deleted this long after they finished", default: "90d", in: 3_600...(3_650 * 86_400), at: \.retention.jobs),
        .seconds("REGISTRATION_RETENTION", "Registrations of passes whose event ended this long ago are deleted (an event without an end counts from its start)", default: "180d", in: 86_400...(3_650 * 86_400), at: \.retention.registrations),
        .seconds("RETENTION_INTERVAL", "How often a server deletes what is past its retention (one instance at a time; `pass-server prune` does it on demand)", default: "1h", in: 1...86_400, at: \.retention.interval),
        .seconds("DELETED_EVENT_GRACE", "A deleted event's voided passes are served this long at most; its rows go earlier once every registered phone has fetched the voided pass", default: "7d", in: 60...(365 * 86_400), at: \.retention.deletedEvents),
        Setting("ERASE_AFTER_DAYS", "Erase attendees' names, emails, seats and extra fields this many days after their event ended (counts and check-in times stay); unset: never automatically", default: nil) {
            config, raw throws(SettingProblem) in
            config.retention.eraseAfterDays = try Parse.integer(raw, in: 1...3_650)
        },
        .seconds("ADMIN_SESSION_TTL", "How long a dashboard sign-in (/admin/) lasts; expired sessions are deleted by the retention sweep", default: "12h", in: 60...(30 * 86_400), at: \.dashboard.sessionTTL),
        .seconds("CHECKIN_GRACE", "How long after an event's end (its start + 4 h when it has none) its tickets still check in; later scans are refused (event_ended)", default: "12h", in: 0...(30 * 86_400), at: \.checkIn.grace),
        .seconds("ANNOUNCEMENT_INTERVAL", "Least time between two announcements of one event that alert the lock screen; a second one sooner is refused, naming when it is allowed (0: no limit)", default: "10m", in: 0...86_400, at: \.announcements.interval),
        .integer("DEVICE_LOG_CAPACITY", "Messages from phones (/v1/log) kept; older ones are dropped", default: "10000", in: 1...10_000_000, at: \.deviceLogCapacity),
        .integer("MAX_DEVICES_PER_PASS", "Devices registered per pass; registering one more replaces the one updated least recently", default: "10", in: 1...10_000, at: \.maxDevicesPerPass),
        .integer("BUNDLE_CACHE_SIZE", "Bytes of signed passes cached in memory; size it to hold the passes phones fetch repeatedly", default: "67108864", in: 0...(64 << 30), at: \.bundleCacheSize),
        .text("SMTP_URL", "SMTP server for email to attendees: smtp://[user[:password]@]host[:port] (STARTTLS required) or smtps://… (TLS from the start); unset turns email off", default: nil, secret: true, at: \.mail.smtpURL),
        Setting("SMTP_PASSWORD", "SMTP password, when SMTP_URL names only the user", default: nil, secret: true) { config, raw throws(SettingProblem) in
            config.mail.smtpPassword = raw
        },
        .boolean("SMTP_ALLOW_PLAINTEXT", "Let smtp:// go on without STARTTLS when the server offers none (passwords and tickets then cross the network in the clear)", default: "false", at: \.mail.allowPlaintext),
        .text("SMTP_CA_FILE", "Extra CA certificate (PEM) trusted for the SMTP server, besides the system store", default: nil, at: \.mail.caFile),
        .seconds("SMTP_TIMEOUT", "How long one email may take, from connecting to the server's final reply; one not answered in time is retried", default: "60s", in: 1...3_600, at: \.mail.timeout),
        Setting("MAIL_FROM", "From of every email: tickets@example.org or `Example Events <tickets@example.org>`; required with SMTP_URL", default: nil) {
            config, raw throws(SettingProblem) in
            config.mail.from = try Parse.mailAddress(raw)
        },
        Setting("MAIL_REPLY_TO", "Reply-To of every email (where attendees' answers go)", default: nil) { config, raw throws(SettingProblem) in
            config.mail.replyTo = try Parse.mailAddress(raw)
        },
        Setting("GOOGLE_WALLET_ISSUER_ID", "Issuer id from the Google Pay & Wallet Console (digits); set with GOOGLE_WALLET_SERVICE_ACCOUNT_FILE to issue Google Wallet tickets beside Apple's (docs/google-wallet.md); unset: nothing Google appears", default: nil) {
            config, raw throws(SettingProblem) in
            let text = raw.trimmingCharacters(in: .whitespaces)
            guard (1...32).contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                throw SettingProblem("'\(raw)' is not an issuer id (digits)")
            }
            config.googleWallet.issuerID = text
        },
        .text("GOOGLE_WALLET_SERVICE_ACCOUNT_FILE", "The Google Cloud service account's JSON key file, the account added as a user of the issuer", default: nil, at: \.googleWallet.serviceAccountFile),
        .serviceURL("GOOGLE_WALLET_API_URL", "Base URL of Google's Wallet REST API (classes and objects)", default: "https://walletobjects.googleapis.com/walletobjects/v1", at: \.googleWallet.endpoints.api),
        .serviceURL("GOOGLE_WALLET_TOKEN_URL", "Google's OAuth 2.0 token endpoint", default: "https://oauth2.googleapis.com/token", at: \.googleWallet.endpoints.token),
        .serviceURL("GOOGLE_WALLET_SAVE_URL", "Base of Add to Google Wallet links", default: "https://pay.google.com/gp/v/save", at: \.googleWallet.endpoints.save),
        .serviceURL("GOOGLE_WALLET_KEYS_URL", "Google's root keys that sign save and delete callbacks", default: "https://pay.google.com/gp/m/issuer/keys", at: \.googleWallet.endpoints.callbackKeys),
        .text("GOOGLE_WALLET_CA_FILE", "Extra CA certificate (PEM) trusted for Google's servers, besides the system store", default: nil, at: \.googleWallet.caFile),
        .seconds("GOOGLE_WALLET_TIMEOUT", "How long one call to Google's Wallet API may take; one not answered in time is retried", default: "30s", in: 1...600, at: \.googleWallet.timeout),
        .seconds("GOOGLE_WALLET_LEASE", "How long a claimed Google Wallet update belongs to its process; a crashed process's updates are sent again after it", default: "2 × GOOGLE_WALLET_TIMEOUT + 30s", in: 2...3_600, at: \.googleWallet.lease),
        .seconds("WEBHOOK_TIMEOUT", "How long one webhook delivery may take, connecting included; no 2xx within it is a failure, retried with backoff (docs/webhooks.md)", default: "10s", in: 1...120, at: \.webhooks.timeout),
        .boolean("WEBHOOK_ALLOW_PRIVATE_TARGETS", "Let webhook endpoints be http and point at loopback, private (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) and link-local addresses: a receiver on this host or its network. Off: https to public addresses only", default: "false", at: \.webhooks.allowPrivateTargets),
        .seconds("WEBHOOK_DISABLE_AFTER", "A webhook endpoint whose every delivery has failed for this long (no 2xx since) is disabled, with the reason, until re-enabled", default: "3d", in: 60...(90 * 86_400), at: \.webhooks.disableAfter),
        .seconds("WEBHOOK_LEASE", "How long a claimed webhook delivery belongs to its process; a crashed process's deliveries are sent again after it", default: "2 × WEBHOOK_TIMEOUT + 30s", in: 5...3_600, at: \.webhooks.lease),
        .seconds("WEBHOOK_LOG_RETENTION", "Webhook deliveries delivered or failed are kept this long in their endpoint's log, then deleted", default: "30d", in: 3_600...(3_650 * 86_400), at: \.retention.webhookLog),
        .serviceURL("ANDROID_PASS_PUSH_URL", "Push relay of Android wallet apps that speak Apple's protocol (WalletPasses: https://walletpasses.appspot.com/api/v1/push); set, their AndroidPass registrations are accepted and pushed through it (docs/device.md); unset: refused (401)", default: nil, at: \.androidRelay.url),
        Setting("ANDROID_PASS_PUSH_KEY", "API key of the Android push relay, sent as its Authorization header; unset sends none (the relay then limits us as an anonymous caller)", default: nil, secret: true) {
            config, raw throws(SettingProblem) in
            config.androidRelay.key = try Parse.nonEmpty(raw)
        },
        Setting("MAIL_RATE", "Emails sent per second, at most (each instance)", default: "10") { config, raw throws(SettingProblem) in
            guard let rate = Double(raw.trimmingCharacters(in: .whitespaces)), rate.isFinite, rate >= 0.01, rate <= 10_000 else {
                throw SettingProblem("'\(raw)' is not a number of messages per second in 0.01…10000")
            }
            config.mail.rate = rate
        },
        .seconds("MAIL_LEASE", "How long a claimed email belongs to its process; a crashed process's emails are sent again after it", default: "2 × SMTP_TIMEOUT + 30s", in: 2...86_400, at: \.mail.lease),
        .seconds("MAIL_UNREACHABLE_GRACE", "While emails are pending, how long the SMTP server may be unreachable before /readyz warns (email never makes an instance unready)", default: "5m", in: 1...86_400, at: \.mail.unreachableGrace),
        .seconds("MAIL_HALT_PAUSE", "After the SMTP server refuses us (credentials, sender, TLS), pause all email this long, then probe with one message", default: "5m", in: 1...86_400, at: \.mail.haltPause),
    ]
}
