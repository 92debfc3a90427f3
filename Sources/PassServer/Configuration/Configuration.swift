public import APNs
public import GoogleWallet
public import Foundation
public import HTTPServer
public import Logging

/// Everything `pass-server` is told by its operator, read once at start and passed by value.
///
/// Built by `Configuration.load(environment:arguments:)` from environment variables and command-line
/// flags (flags win); every setting is described once in `Configuration.settings`, which also
/// drives `--help` and the README's configuration table.
public struct Configuration: Sendable, Equatable {
    public var http = HTTP()
    public var database = Database()
    public var logLevel: LogLevel = .info
    public var signing = Signing()
    public var apns = APNs()
    public var push = Push()
    public var jobs = Jobs()
    public var retention = Retention()
    public var mail = Mail()
    public var googleWallet = GoogleWallet()
    public var androidRelay = AndroidRelay()
    public var webhooks = Webhooks()
    public var dashboard = Dashboard()
    public var checkIn = CheckIn()
    public var announcements = Announcements()
    /// Secret from which pass authentication and download tokens are derived (HMAC-SHA256), so the
    /// database only ever holds their hashes. Never rotate it once passes are issued.
    public var tokenSecret: [UInt8]? = nil
    /// Directory holding pass templates (`Passes/<template>/pass.json`, images, `.lproj`).
    public var passesDirectory = "Passes"
    /// Development mode: generated certificates, http public URL, pushes logged, a generated token secret.
    public var development = false
    /// Rows kept in the table of messages phones send to `/v1/log`; older ones are dropped.
    public var deviceLogCapacity = 10_000
    /// Devices one pass may be registered on; one more replaces the least recently updated, so a
    /// pass holder cannot make one ticket change fan out into thousands of pushes.
    public var maxDevicesPerPass = 10
    /// Bytes of signed bundles kept in memory (per pass revision). A bundle with the template's strip
    /// images is about 165 KB, so the default holds a few hundred passes.
    public var bundleCacheSize = 64 << 20

    public init() {}

    public struct HTTP: Sendable, Equatable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// The externally visible base URL: `webServiceURL` in every pass and the base of download links.
        public var publicURL: URL? = nil
        /// Permits an `http://` public URL (development only: Wallet requires https).
        public var allowInsecurePublicURL = false
        public var maxBodySize = 1 << 20
        public var connectionTimeout = 30
        /// Seconds a whole request may take to arrive (a trickling client is cut off after this).
        public var requestTimeout = 30
        public var maxConnections = 1024
        /// Connections one client address may hold at once (trusted proxies are exempt).
        public var maxConnectionsPerClient = 32
        /// Reverse proxies whose `X-Forwarded-For` names the client; loopback by default.
        public var trustedProxies = AddressRange.loopback
        public var threads = 0
        public var drainTimeout = 10
        public init() {}
    }

    public struct Database: Sendable, Equatable {
        public var url = "sqlite://.data/pass-server.sqlite"
        public var poolSize = 0
        public var statementTimeout = 15
        public var migrateOnStart = true
        public init() {}
    }

    public struct Signing: Sendable, Equatable {
        public var certificate: String? = nil
        public var privateKey: String? = nil
        public var privateKeyPassword: String? = nil
        public var p12: String? = nil
        public var p12Password: String? = nil
        public var wwdrCertificate: String? = nil
        public var passTypeIdentifier: String? = nil
        public var teamIdentifier: String? = nil
        /// `organizationName` of every pass, shown in Wallet and on the lock screen. Required
        /// outside development (where it defaults to `developmentOrganizationName`).
        public var organizationName: String? = nil
        /// The NFC readers' public key (Base64 of a P-256 SubjectPublicKeyInfo) when the pass type
        /// certificate is enabled for NFC; nil: passes carry no `nfc` and designs asking for it are refused.
        public var nfcReaderKey: String? = nil
        public init() {}
    }

    public enum APNSMode: String, Sendable, Equatable, CaseIterable {
        /// Send pushes to `APNS_URL` over HTTP/2.
        case live
        /// Log each push instead of sending it (development).
        case log
    }

    public struct APNs: Sendable, Equatable {
        public var mode: APNSMode = .live
        public var url = "https://api.push.apple.com"
        public var caFile: String? = nil
        public var connections = 2
        public var expiration = 3 * 86_400
        public var requestTimeout = 30
        /// `apns-push-type` of every push: background (held to the phone's background budget) or alert.
        public var pushType: APNSPushType = .background
        /// `apns-priority` of every push; APNs refuses 10 with the background push type.
        public var priority: APNSPriority = .considerPower
        /// While pushes are pending, how long APNs may stay unreachable (connect or TLS failures)
        /// before `/readyz` reports it.
        public var unreachableGrace = 60
        public init() {}
    }

    public struct Push: Sendable, Equatable {
        /// How long a push may keep being retried (429, 5xx, connection loss) before it is marked failed.
        public var maxRetryAge = 86_400
        public var batchSize = 500
        public var concurrency = 1000
        /// After APNs refuses our credentials or topic (403; 400 BadTopic, TopicDisallowed,
        /// MissingTopic), how long sending pauses before one push probes again.
        public var haltPause = 300
        /// How long a claimed outbox row belongs to its process; a process that dies leaves its rows
        /// to be sent again after this. nil: 2 × `apns.requestTimeout` + 30 s.
        public var lease: Int? = nil
        /// First retry delay in seconds (doubles per attempt, full jitter, capped at `retryMaxDelay`).
        public var retryBaseDelay: Double = 1
        /// Longest retry delay in seconds.
        public var retryMaxDelay: Double = 300
        public init() {}
    }

    public struct Jobs: Sendable, Equatable {
        /// Passes bumped per re-push batch (one transaction each).
        public var batchSize = 500
        /// Seconds a runner holds a job between batches; a job whose runner died is resumed by
        /// another runner after this long.
        public var lease = 60
        public init() {}
    }

    /// How long rows that only serve statistics or history are kept; the server deletes older ones
    /// every `interval` (one instance at a time), and `pass-server prune` does it on demand.
    public struct Retention: Sendable, Equatable {
        /// Seconds `push_log` entries and failed outbox rows are kept.
        public var pushLog = 30 * 86_400
        /// Seconds finished re-push jobs are kept after they finished.
        public var jobs = 90 * 86_400
        /// Seconds after an event ended (or started, without an end) that its passes' registrations are kept.
        public var registrations = 180 * 86_400
        /// Seconds between two sweeps of one server.
        public var interval = 3_600
        /// Seconds a deleting event's rows are kept at most (they go earlier once every registered
        /// phone was told and served the voided pass).
        public var deletedEvents = 7 * 86_400
        /// Days after an event ended (or started, without an end) that its attendees' data is
        /// erased; nil: never automatically.
        public var eraseAfterDays: Int? = nil
        /// Seconds delivered and failed webhook deliveries are kept in their endpoint's log.
        public var webhookLog = 30 * 86_400
        public init() {}
    }

    /// The organizers' pages under `/admin/`.
    public struct Dashboard: Sendable, Equatable {
        /// Seconds a sign-in lasts; the session is then gone and the organizer signs in again.
        public var sessionTTL = 12 * 3_600
        public init() {}
    }

    /// The door (docs/checkin.md).
    public struct CheckIn: Sendable, Equatable {
        /// Seconds after an event's end (its start + 4 hours without an end) during which its
        /// tickets still check in; later scans are refused as `event_ended`.
        public var grace = 12 * 3_600
        public init() {}
    }

    /// Announcements to the holders of an event's passes (docs/scheduling.md).
    public struct Announcements: Sendable, Equatable {
        /// Seconds between two notifying announcements of one event, at least; 0: no limit.
        public var interval = 600
        public init() {}
    }

    /// Google Wallet tickets beside Apple's (docs/google-wallet.md): off while `issuerID` is nil.
    public struct GoogleWallet: Sendable, Equatable {
        /// The issuer id of the Google Pay & Wallet Console (digits); nil turns Google Wallet off.
        public var issuerID: String? = nil
        /// The service account's JSON key file (its `client_email` and `private_key`).
        public var serviceAccountFile: String? = nil
        /// Google's addresses; the settings let tests point them at a local fake.
        public var endpoints = GoogleWalletEndpoints.production
        /// Extra CA certificate (PEM) trusted for Google's servers, besides the system store.
        public var caFile: String? = nil
        /// Seconds one call to Google may take; one not answered in time is retried.
        public var timeout = 30
        /// Seconds a claimed update belongs to its process; nil: 2 × `timeout` + 30 s.
        public var lease: Int? = nil
        public var isEnabled: Bool { issuerID != nil }
        public init() {}
    }

    /// Signed webhooks to the organizers' own systems (docs/webhooks.md): endpoints are registered
    /// in the dashboard or the admin API; these are how deliveries go.
    public struct Webhooks: Sendable, Equatable {
        /// Seconds one delivery may take, connecting included.
        public var timeout = 10
        /// Accept http and loopback, private and link-local targets (a receiver on this host or network).
        public var allowPrivateTargets = false
        /// Seconds every attempt of an endpoint may fail (no 2xx since) before it is disabled.
        public var disableAfter = 3 * 86_400
        /// Seconds a claimed delivery belongs to its process; nil: 2 × `timeout` + 30 s.
        public var lease: Int? = nil
        /// First retry delay in seconds (doubles per attempt, full jitter, capped at `retryMaxDelay`).
        public var retryBaseDelay: Double = 10
        /// Longest retry delay in seconds.
        public var retryMaxDelay: Double = 3_600
        /// How long a delivery is retried before it is failed (as long as an endpoint may fail).
        public var maxRetryAge: Double = 3 * 86_400
        /// Threads sending deliveries (each one request at a time, keep-alive connections).
        public var senderThreads = 16
        /// Deliveries in flight to one endpoint at once, at most.
        public var perEndpointConcurrency = 8
        /// Deliveries claimed and not yet answered, per endpoint and over all of them.
        public var perEndpointInFlight = 500
        public var maxInFlight = 2_000
        /// Seconds a lane rests after its endpoint could not be reached.
        public var restAfterUnreachable: TimeInterval = 30
        /// How often the outbox is polled for deliveries queued by other processes (or by device
        /// registrations, which wake nothing).
        public var pollInterval: TimeInterval = 1
        /// How long an answer waits for others to be recorded with it (`OutboxSettings.recordWindow`).
        public var recordWindow: TimeInterval = 0.02
        public init() {}
    }

    /// Android wallet apps that speak Apple's web-service protocol (docs/device.md): the push relay
    /// they are pushed through. Off while `url` is nil: their `AndroidPass` requests are refused.
    public struct AndroidRelay: Sendable, Equatable {
        /// The relay's push endpoint (WalletPasses: `https://walletpasses.appspot.com/api/v1/push`).
        public var url: String? = nil
        /// The relay's API key, sent as the `Authorization` header; nil sends none.
        public var key: String? = nil
        public var isEnabled: Bool { url != nil }
        public init() {}
    }

    /// Email to attendees (their tickets): off while `smtpURL` is nil.
    public struct Mail: Sendable, Equatable {
        /// `smtp://` (STARTTLS required unless `allowPlaintext`) or `smtps://`; nil turns email off.
        public var smtpURL: String? = nil
        /// The SMTP password, when the URL names only the user.
        public var smtpPassword: String? = nil
        public var allowPlaintext = false
        /// Extra CA certificate (PEM) trusted for the SMTP server, besides the system store.
        public var caFile: String? = nil
        /// `From` of every message: `tickets@example.org` or `Example Events <tickets@example.org>`.
        public var from: String? = nil
        public var replyTo: String? = nil
        /// Messages per second, at most.
        public var rate: Double = 10
        /// Seconds one message may take, from connecting to the server's final reply.
        public var timeout = 60
        /// Seconds a claimed email belongs to its process; nil: 2 × `timeout` + 30 s.
        public var lease: Int? = nil
        /// First retry delay in seconds after a temporary failure (doubles per attempt, full
        /// jitter, capped at `retryMaxDelay`).
        public var retryBaseDelay: Double = 30
        /// Longest retry delay in seconds.
        public var retryMaxDelay: Double = 1_800
        /// How long a message may keep being retried before it is marked failed.
        public var maxRetryAge: Double = 2 * 86_400
        /// Seconds all email pauses after the SMTP server refuses us, before one probe message.
        public var haltPause = 300
        /// Seconds the SMTP server may be unreachable, while emails are pending, before `/readyz`
        /// lists a warning.
        public var unreachableGrace = 300
        public init() {}

        /// Whether email is on (an SMTP server is configured).
        public var isEnabled: Bool { smtpURL != nil }
    }
}
