import APNs
import Certificates
import Dispatch
package import Foundation
import HTTPServer
public import Logging
import PassBundle
package import Storage
import SystemSupport

/// The running service: one HTTP server, the store, pass signing, the push dispatcher, the job
/// runner, the reach ledger, the retention sweep, the certificate expiry check and the tally
/// folder, wired from one `Configuration`.
///
/// Threading: HTTP handlers run synchronously on libmicrohttpd's thread pool and block on the
/// store and on signing there. The push dispatcher, the job runner, the reach ledger, the
/// retention sweep, the certificate check and the tally folder each own a thread. Nothing blocking runs on Swift's cooperative pool.
public final class Application: Sendable {
    public let configuration: Configuration
    let logger: Logger
    package let store: any Store
    package let passes: PassService
    let readiness = Readiness()
    let server: HTTPServer
    let dispatcher: PushDispatcher
    /// Pushes to Android wallet apps through their relay; nil while ANDROID_PASS_PUSH_URL is unset.
    let relayDispatcher: PushDispatcher?
    /// Ticket emails; nil while email is off (no SMTP_URL).
    let mail: MailDispatcher?
    /// Google Wallet updates; nil while Google Wallet is off (no GOOGLE_WALLET_ISSUER_ID).
    let googleWallet: GoogleWalletDispatcher?
    /// Webhook deliveries to the organizers' endpoints.
    let webhooks: WebhookDispatcher
    let jobRunner: JobRunner
    /// Applies announcements and event edits when they are due.
    let scheduler: Scheduler
    /// The operations the scheduler applies them with.
    let scheduledOperations: Organizer
    let certificates: CertificateMonitor
    let retentionWorker: Worker.Periodic
    let certificateWorker: Worker.Periodic
    let tallyWorker: Worker.Periodic
    let templateWorker: Worker.Periodic
    /// Reach marks from the phones' requests, written in batches.
    let reach: ReachLedger
    /// The device API's cache of pass token hashes.
    let authentication = AuthenticationCache()
    /// Every route served (method and `:param` pattern), for the OpenAPI coverage test.
    let routes: [(method: String, pattern: String)]

    /// Runs the start-up steps (settings, token secret, signing identity, watched certificates,
    /// database and migrations, the HTTP port, the push and mail senders) and builds the routes.
    /// Nothing listens until `start()`. Every problem found is thrown together as a `StartupError`.
    public convenience init(configuration: Configuration, logSink: any LogSink = StandardErrorSink()) throws {
        try self.init(configuration: configuration, logSink: logSink, now: Date.init)
    }

    /// `now` is the wall clock for certificate validity and expiry warnings and for the retention
    /// sweep's cutoffs (tests move it).
    package init(configuration: Configuration, logSink: any LogSink, now: @escaping @Sendable () -> Date) throws {
        self.configuration = configuration
        let logger = Logger(label: "pass-server", level: configuration.logLevel, sink: logSink)
        self.logger = logger
        let startedInstant = ContinuousClock.now
        let startedAt = now()

        // Start-up steps: every independent one runs, and all their problems are reported together.
        var bootstrap = Bootstrap(configuration)
        let publicURL = bootstrap.require(configuration.http.publicURL, setting: "PUBLIC_URL", purpose: "the https address phones reach this server at")
        let organizationName = bootstrap.require(
            configuration.signing.organizationName, setting: "ORGANIZATION_NAME", purpose: "Wallet shows it on the lock screen"
        )
        let secret = bootstrap.run(.tokenSecret) { try Self.tokenSecret(configuration) }
        // The signing identity needs its files; an unreadable one is the problem to report, not what loading it says.
        let identity = bootstrap.checkFiles() ? bootstrap.run(.signing) { try Self.signingIdentity(configuration, logger: logger, now: startedAt) } : nil
        let signer = identity.flatMap { identity in bootstrap.run(.signing) { try PassSigner(identity: identity) } }
        let watched = identity.flatMap { identity in bootstrap.run(.watchedCertificates) { try Self.watchedCertificates(configuration, identity: identity) } }
        let store = bootstrap.run(.database) { try Self.openStore(configuration, logger: logger.named("database"), creatingSQLiteFile: true) }
        if let store, configuration.database.migrateOnStart {
            bootstrap.run(.migrations) { try store.migrate() }
        }
        let listening = bootstrap.run(.listener) { try ListeningSocket(host: configuration.http.host, port: configuration.http.port) }
        guard let publicURL, let organizationName, let secret, let identity, let signer, let watched, let store, let listening,
            bootstrap.problems.isEmpty
        else {
            store?.close()
            throw StartupError(bootstrap.problems)
        }
        let certificates = CertificateMonitor(certificates: watched, readiness: readiness, logger: logger.named("certificates"), now: now)
        self.certificates = certificates
        self.store = store
        let passes = PassService(
            signer: signer,
            templates: TemplateLibrary(files: TemplateStore(root: configuration.passesDirectory), store: store),
            vault: TokenVault(secret: secret),
            publicURL: publicURL,
            organizationName: organizationName,
            allowHTTP: configuration.http.allowInsecurePublicURL,
            cacheBytes: configuration.bundleCacheSize,
            nfcReaderKey: configuration.signing.nfcReaderKey,
            loadImages: { [store] ids in try store.withSession(.read) { try $0.images.passImages(ids: ids) } }
        )
        self.passes = passes

        let sender = bootstrap.run(.push) { try Self.pushSender(configuration, identity: identity, logger: logger.named("apns")) }
        let readiness = readiness
        let mailDispatcher = bootstrap.run(.mail) {
            try Self.mailDispatcher(configuration, store: store, passes: passes, readiness: readiness, logger: logger.named("mail"), now: now)
        }
        let googleDispatcher = bootstrap.run(.googleWallet) {
            try Self.googleWalletDispatcher(configuration, publicURL: publicURL, store: store, passes: passes, readiness: readiness, logger: logger.named("google"), now: now)
        }
        guard let sender, let mailDispatcher, let googleDispatcher, bootstrap.problems.isEmpty else {
            sender?.shutdown()
            store.close()
            throw StartupError(bootstrap.problems)
        }
        let dispatcher = PushDispatcher(
            store: store, sender: sender,
            policy: PushPolicy(
                maxRetryAge: TimeInterval(configuration.push.maxRetryAge), baseDelay: configuration.push.retryBaseDelay,
                maxDelay: configuration.push.retryMaxDelay
            ),
            readiness: readiness,
            logger: logger.named("push"),
            settings: PushDispatcher.Settings(
                batchSize: configuration.push.batchSize, maxInFlight: configuration.push.concurrency,
                lease: .seconds(configuration.push.lease ?? 2 * configuration.apns.requestTimeout + 30),
                haltPause: TimeInterval(configuration.push.haltPause), drainTimeout: TimeInterval(configuration.http.drainTimeout),
                unreachableGrace: TimeInterval(configuration.apns.unreachableGrace)
            ),
            pacing: PushPacing(meter: passes.meter, logger: logger.named("push"))
        )
        self.dispatcher = dispatcher
        readiness.addCheck { dispatcher.unreachableFinding().map { [$0] } ?? [] }
        let relayDispatcher = Self.relayDispatcher(configuration, store: store, readiness: readiness, logger: logger.named("relay"))
        self.relayDispatcher = relayDispatcher
        if let relayDispatcher { readiness.addCheck { relayDispatcher.unreachableFinding().map { [$0] } ?? [] } }
        let google = googleDispatcher
        googleWallet = google
        if let google { readiness.addCheck { google.unreachableFinding().map { [$0] } ?? [] } }
        let webhooks = Self.webhookDispatcher(configuration, store: store, passes: passes, logger: logger.named("webhooks"), now: now)
        self.webhooks = webhooks
        // Everything a pass change may have enqueued: pushes (APNs and the relay), Google Wallet and webhooks.
        let wakeDispatchers: @Sendable () -> Void = {
            dispatcher.wake()
            relayDispatcher?.wake()
            google?.wake()
            webhooks.wake()
        }
        Self.warnAboutSandbox(configuration, logger: logger)
        let mail = mailDispatcher
        self.mail = mail
        if let mail { readiness.addCheck { mail.unreachableFinding().map { [$0] } ?? [] } }
        let jobRunner = JobRunner(
            store: store, logger: logger.named("jobs"), settings: JobRunner.Settings(configuration.jobs),
            afterBatch: { _ in wakeDispatchers() }, afterEmailBatch: { batch in if batch.queued > 0 { mail?.wake() } }
        )
        self.jobRunner = jobRunner
        let sweep = RetentionSweep(
            store: store, retention: configuration.retention, logger: logger.named("retention"),
            holder: "serve-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))", now: now
        )
        retentionWorker = Worker.periodic(name: "retention", interval: TimeInterval(configuration.retention.interval)) { shouldStop in
            do {
                _ = try sweep.run(shouldStop: shouldStop)
            } catch {
                sweep.logger.error("retention sweep failed; the next one retries", ["error": "\(error)"])
            }
        }
        certificateWorker = Worker.periodic(name: "certificates", interval: 3_600, runAtStart: false) { _ in certificates.check() }
        let folder = TallyFolder(store: store, logger: logger.named("tallies"))
        tallyWorker = Worker.periodic(name: "tallies", interval: 1) { shouldStop in folder.fold(shouldStop: shouldStop) }
        let watch = TemplateWatch(store: store, templates: passes.templates, logger: logger.named("templates"), jobCreated: { jobRunner.wake() }, now: now)
        templateWorker = Worker.periodic(name: "templates", interval: TemplateWatch.interval) { _ in watch.check() }

        let reach = ReachLedger(store: store, logger: logger.named("reach"))
        self.reach = reach

        var router = Router()
        HealthController(store: store, readiness: readiness, logger: logger).register(in: &router)
        DeviceController(
            store: store, passes: passes, reach: reach, logLimiter: RateLimiter(burst: 20, perMinute: 10), logger: logger.named("device"),
            authentication: authentication, deviceLogCapacity: configuration.deviceLogCapacity,
            maxDevicesPerPass: configuration.maxDevicesPerPass, acceptsAndroid: relayDispatcher != nil
        ).register(in: &router)
        let checkIns = CheckInMetrics()
        let schedulingMetrics = SchedulingMetrics()
        let scheduler = Scheduler(store: store, logger: logger.named("scheduler"), metrics: schedulingMetrics)
        self.scheduler = scheduler
        var admin = AdminController(
            store: store, passes: passes, logger: logger.named("admin"),
            pushesEnqueued: wakeDispatchers, jobCreated: { jobRunner.wake(); google?.wake(); webhooks.wake() },
            mail: MailAccess(isEnabled: mail != nil, queued: { mail?.wake() }), checkIns: checkIns, settleReach: { reach.settle() },
            doorHours: DoorHours(grace: TimeInterval(configuration.checkIn.grace))
        )
        admin.googleWallet = configuration.googleWallet.isEnabled
        admin.webhookTargets = WebhookTargets(allowPrivate: configuration.webhooks.allowPrivateTargets)
        admin.webhooksQueued = { webhooks.wake() }
        admin.scheduling = SchedulingAccess(
            announcementInterval: TimeInterval(configuration.announcements.interval), scheduled: { scheduler.wake() }, metrics: schedulingMetrics
        )
        scheduledOperations = admin.organizer
        admin.register(in: &router)
        DashboardController(
            admin: admin,
            sessions: DashboardSessions(
                store: store, lifetime: configuration.dashboard.sessionTTL, secureCookies: publicURL.scheme?.lowercased() == "https", now: now
            )
        ).register(in: &router)
        DownloadController(store: store, passes: passes, google: google?.saveLinks(publicURL: publicURL), now: now).register(in: &router)
        OrderController(store: store, passes: passes, googleWallet: configuration.googleWallet.isEnabled, now: now).register(in: &router)
        PassImageController(store: store).register(in: &router)
        WebAssets().register(in: &router)
        OpenAPIController.register(in: &router)
        RootController.register(in: &router)
        let googleCallbacks = CallbackMetrics()
        if let passType = passes.passType {
            GoogleWalletCallbackController(
                store: store, verifier: Self.googleCallbackVerifier(configuration.googleWallet), passType: passType, metrics: googleCallbacks,
                logger: logger.named("google-wallet"), now: now
            ).register(in: &router)
        }
        let httpMetrics = HTTPMetrics()
        var metrics = MetricsController(
            store: store, dispatcher: dispatcher, relay: relayDispatcher, mail: mail, passes: passes, http: httpMetrics, checkIns: checkIns,
            scheduling: schedulingMetrics, certificates: certificates,
            googleWallet: configuration.googleWallet.isEnabled ? googleCallbacks : nil,
            logger: logger.named("metrics"), startedAt: startedAt, startedInstant: startedInstant, now: now
        )
        metrics.googleUpdates = google
        metrics.webhooks = webhooks
        metrics.register(in: &router)
        routes = router.routes.map { (method: $0.method.rawValue, pattern: $0.pattern) }

        let http = configuration.http
        var serverConfiguration = ServerConfiguration()
        serverConfiguration.host = http.host
        serverConfiguration.port = http.port
        serverConfiguration.maxBodySize = http.maxBodySize
        serverConfiguration.connectionTimeout = .seconds(http.connectionTimeout)
        serverConfiguration.requestTimeout = .seconds(http.requestTimeout)
        serverConfiguration.maxConnections = http.maxConnections
        serverConfiguration.maxConnectionsPerClient = http.maxConnectionsPerClient
        serverConfiguration.trustedProxies = http.trustedProxies
        if http.threads > 0 { serverConfiguration.threads = http.threads }
        serverConfiguration.drainTimeout = .seconds(http.drainTimeout)
        server = HTTPServer(
            configuration: serverConfiguration, router: router, logger: logger.named("http"), observer: httpMetrics.observer, listening: listening
        )
    }

    /// The bound port (after `start`).
    public var port: Int { server.port }

    /// `<PUBLIC_URL>/admin/`, where organizers sign in (start-up prints it).
    package var dashboardURL: String? {
        configuration.http.publicURL.map { url in
            let base = url.absoluteString
            return (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/admin/"
        }
    }

    /// Starts listening, dispatching pushes, running jobs, sweeping old rows and checking certificates.
    public func start() throws {
        do {
            try server.start()
        } catch {
            throw StartupError([Bootstrap.listenerProblem(error, http: configuration.http)])
        }
        reach.start()
        dispatcher.start()
        relayDispatcher?.start()
        mail?.start()
        googleWallet?.start()
        webhooks.start()
        jobRunner.start()
        scheduler.start(organizer: scheduledOperations)
        certificates.check()
        certificateWorker.start()
        retentionWorker.start()
        tallyWorker.start()
        templateWorker.start()
        logger.notice(
            "listening",
            ["host": configuration.http.host, "port": "\(server.port)", "store": "\(store.backend)",
             "public_url": configuration.http.publicURL?.absoluteString ?? ""]
        )
        if let dashboard = dashboardURL {
            logger.notice("dashboard: open it in a browser and sign in with an admin token", ["url": dashboard])
        }
    }

    /// Stops accepting, drains in-flight requests, finishes the job batch and the pushes in
    /// flight, and closes the store. Idempotent.
    public func shutdown() {
        server.shutdown()
        server.waitUntilStopped()
        reach.shutdown()
        scheduler.shutdown()
        jobRunner.shutdown()
        retentionWorker.shutdown()
        certificateWorker.shutdown()
        dispatcher.shutdown()
        relayDispatcher?.shutdown()
        mail?.shutdown()
        googleWallet?.shutdown()
        webhooks.shutdown()
        tallyWorker.shutdown()
        templateWorker.shutdown()
        store.close()
        logger.notice("stopped")
    }

    /// Serves until SIGTERM or SIGINT, then shuts down gracefully and returns.
    public func runUntilSignalled() throws {
        // Watching before "listening" is logged: a signal sent as soon as it is seen must count.
        let signals = SignalWatch([SIGTERM, SIGINT])
        try start()
        signals.wait()
        logger.notice("signal received, draining")
        shutdown()
        signals.cancel()
    }

    /// Applies pending migrations (for `pass-server migrate`), creating an SQLite database that does not exist yet.
    package static func migrate(configuration: Configuration) throws {
        let store = try openStore(configuration, creatingSQLiteFile: true)
        defer { store.close() }
        try store.migrate()
    }

    /// The configured store; `logger` hears of connection losses and reconnects (once each). Only
    /// `serve` and `migrate` create an SQLite file that does not exist: other commands would
    /// otherwise work on a new empty database after a mistyped DATABASE_URL.
    package static func openStore(_ configuration: Configuration, logger: Logger? = nil, creatingSQLiteFile: Bool = false) throws -> any Store {
        var options = StoreOptions(logger: logger, createIfMissing: creatingSQLiteFile)
        if configuration.database.poolSize > 0 { options.poolSize = configuration.database.poolSize }
        options.statementTimeout = .seconds(configuration.database.statementTimeout)
        do {
            return try Storage.openStore(url: configuration.database.url, options: options)
        } catch let error as StorageError where error.code == .notFound {
            throw StorageError(.notFound, "DATABASE_URL: \(error.message); `pass-server migrate` creates it, or correct DATABASE_URL")
        }
    }
}
