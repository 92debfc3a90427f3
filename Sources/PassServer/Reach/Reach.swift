import Storage

/// How far changes have reached phones, for an event or a re-push job (docs/admin.md, "Reach"):
/// the registrations of its passes and how many of them are up to date (told the pass's current
/// revision and served it since), and what became of the pushes sent for it.
///
/// Reach is kept here, in `Reach/`, from end to end:
/// - the phones' requests leave marks (told a tag by the changed-serials list, served a revision),
///   written in batches by `ReachLedger`; readers settle the ledger first (`AdminController.settleReach`);
/// - push outcomes change the tallies of their events and jobs (`PushTallies`; the database's
///   triggers tally every other change), and `TallyFolder` folds the changes into running tallies;
/// - `Reach` is what is read from them: an event's total, or a job's share of it.
///
/// The admin API shows it as `ReachBody`; a ticket's phones one by one as `DeviceBody`.
struct Reach: Sendable, Equatable {
    /// Registrations of the passes (a phone holding two tickets counts twice).
    var devices: Int64 = 0
    /// Of those, the ones up to date.
    var devicesUpToDate: Int64 = 0
    /// Pushes waiting in the outbox, given up on, and accepted by APNs.
    var pushesPending: Int64 = 0
    var pushesFailed: Int64 = 0
    var pushesDelivered: Int64 = 0

    init(devices: Int64 = 0, devicesUpToDate: Int64 = 0, pushesPending: Int64 = 0, pushesFailed: Int64 = 0, pushesDelivered: Int64 = 0) {
        self.devices = devices
        self.devicesUpToDate = devicesUpToDate
        self.pushesPending = pushesPending
        self.pushesFailed = pushesFailed
        self.pushesDelivered = pushesDelivered
    }

    /// The reach a tally counts (an event's total, or a page of events' totals one by one).
    init(_ tally: Tally) {
        self.init(
            devices: tally.devices, devicesUpToDate: tally.devicesUpToDate, pushesPending: tally.pushesPending,
            pushesFailed: tally.pushesFailed, pushesDelivered: tally.pushesDelivered
        )
    }

    /// A re-push job's share of its event's tallies (`EventTally.share(of:)`): its pushes, its
    /// registrations up to date, and as devices the registrations it has to reach.
    init(job: Job, of tally: EventTally) {
        self.init(tally.share(of: job))
    }

    /// The reach of a job, read in `session`: nil for a job of no event.
    static func of(_ job: Job, in session: StoreSession) throws -> Reach? {
        try job.eventID.map { Reach(job: job, of: try session.reach.eventTally(eventID: $0)) }
    }
}
