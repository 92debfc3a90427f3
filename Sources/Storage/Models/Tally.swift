/// Running counts of an event, or of the part of it a re-push job owns (see `event_tallies`).
public struct Tally: Sendable, Equatable {
    /// Tickets issued, and of them cancelled, and the distinct phones registered for at least one
    /// of them (event totals only; jobs own none).
    public var tickets: Int64 = 0
    public var cancelled: Int64 = 0
    public var registeredDevices: Int64 = 0
    /// Registrations of the passes (a phone holding two tickets counts twice).
    public var devices: Int64 = 0
    /// Of those, the ones up to date: told the pass's current revision and served it since.
    public var devicesUpToDate: Int64 = 0
    /// Pushes waiting in the outbox, given up on (APNs refused them for good, retries ran out, or
    /// the token was dead and its registrations pruned), and accepted by APNs.
    public var pushesPending: Int64 = 0
    public var pushesFailed: Int64 = 0
    public var pushesDelivered: Int64 = 0
    /// Active (not cancelled) tickets checked in, and the tickets' emails by state (event totals
    /// only; jobs own none).
    public var checkedIn: Int64 = 0
    public var emailsQueued: Int64 = 0
    public var emailsSent: Int64 = 0
    public var emailsFailed: Int64 = 0

    public init(
        tickets: Int64 = 0, cancelled: Int64 = 0, registeredDevices: Int64 = 0, devices: Int64 = 0, devicesUpToDate: Int64 = 0,
        pushesPending: Int64 = 0, pushesFailed: Int64 = 0, pushesDelivered: Int64 = 0,
        checkedIn: Int64 = 0, emailsQueued: Int64 = 0, emailsSent: Int64 = 0, emailsFailed: Int64 = 0
    ) {
        self.tickets = tickets
        self.cancelled = cancelled
        self.registeredDevices = registeredDevices
        self.devices = devices
        self.devicesUpToDate = devicesUpToDate
        self.pushesPending = pushesPending
        self.pushesFailed = pushesFailed
        self.pushesDelivered = pushesDelivered
        self.checkedIn = checkedIn
        self.emailsQueued = emailsQueued
        self.emailsSent = emailsSent
        self.emailsFailed = emailsFailed
    }

    public static func + (lhs: Tally, rhs: Tally) -> Tally {
        Tally(
            tickets: lhs.tickets + rhs.tickets, cancelled: lhs.cancelled + rhs.cancelled,
            registeredDevices: lhs.registeredDevices + rhs.registeredDevices, devices: lhs.devices + rhs.devices,
            devicesUpToDate: lhs.devicesUpToDate + rhs.devicesUpToDate, pushesPending: lhs.pushesPending + rhs.pushesPending,
            pushesFailed: lhs.pushesFailed + rhs.pushesFailed, pushesDelivered: lhs.pushesDelivered + rhs.pushesDelivered,
            checkedIn: lhs.checkedIn + rhs.checkedIn, emailsQueued: lhs.emailsQueued + rhs.emailsQueued,
            emailsSent: lhs.emailsSent + rhs.emailsSent, emailsFailed: lhs.emailsFailed + rhs.emailsFailed
        )
    }

    public var isZero: Bool { self == Tally() }
}

/// An event's tallies: its total, and the share of each re-push job (by job id; "" is what no job
/// owns: passes no job has bumped, pushes of single-ticket changes).
public struct EventTally: Sendable, Equatable {
    public var total = Tally()
    public var byJob: [String: Tally] = [:]

    public init(total: Tally = Tally(), byJob: [String: Tally] = [:]) {
        self.total = total
        self.byJob = byJob
    }
}

extension EventTally {
    /// A re-push job's share: its pushes, its registrations up to date (those of the passes it
    /// bumped last, holding their current revision), and as devices the registrations it has to
    /// reach: every registration of the event while it is pending or running (passes it has not
    /// bumped yet are still to reach), its own once it has finished.
    public func share(of job: Job) -> Tally {
        var share = byJob[job.id] ?? Tally()
        share.tickets = 0
        share.cancelled = 0
        share.registeredDevices = 0
        if job.state == .pending || job.state == .running { share.devices = total.devices }
        return share
    }
}

/// A change to the tallies of an event (and job) that the database's triggers cannot see: what
/// became of a push.
public struct TallyChange: Sendable, Equatable {
    public var eventID: String
    public var jobID: String?
    public var change: Tally

    public init(eventID: String, jobID: String?, change: Tally) {
        self.eventID = eventID
        self.jobID = jobID
        self.change = change
    }
}
