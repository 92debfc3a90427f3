import Foundation
import Logging
import Storage
import SystemSupport

/// Applies scheduled actions when they are due: an announcement to send, an event edit to apply.
///
/// Each round is one transaction: it claims the pending row due longest ago (`FOR UPDATE SKIP
/// LOCKED` on PostgreSQL, so servers sharing the database never take the same row and never wait
/// for one another), applies it through the organizer operation an immediate action uses, and
/// marks it applied with the job that change started. The state change commits with the change it
/// applies or not at all: a crash or a lost database leaves the row pending, to be applied by the
/// next round of any server, once. A row the organizers are editing is locked by them and skipped
/// until they are done. An action that can no longer apply (`OrganizerError`: the event was
/// deleted or archived, the edit or design no longer fits, an announcement too soon after another)
/// is marked failed with the reason in a transaction of its own.
///
/// Threading: a `Worker` thread runs `Loop`, one action per round; every store call blocks there.
/// Between rounds it sleeps until the next pending row is due, at most `pollInterval` (rows other
/// servers save are found then), or until `wake()` (this server saved one).
final class Scheduler: Sendable {
    struct Settings: Sendable {
        /// How often the table is looked at when nothing is due sooner.
        var pollInterval: TimeInterval = 1

        init() {}
    }

    /// What one round did.
    enum Round: Equatable {
        case applied(ScheduledAction)
        case failed(ScheduledAction)
        /// Nothing was due; the next pending row's time, if any.
        case idle(next: Date?)
    }

    private let store: any Store
    private let logger: Logger
    private let settings: Settings
    let metrics: SchedulingMetrics
    private let now: @Sendable () -> Date
    private let worker = Worker(name: "scheduler")

    init(
        store: any Store, logger: Logger, settings: Settings = Settings(), metrics: SchedulingMetrics = SchedulingMetrics(),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.logger = logger
        self.settings = settings
        self.metrics = metrics
        self.now = now
    }

    /// Starts applying due actions with `organizer`'s operations.
    func start(organizer: Organizer) {
        worker.start(Loop(scheduler: self, organizer: organizer))
    }

    /// An action was saved or changed in this process: look at the times again now.
    func wake() {
        worker.wake()
    }

    /// Stops after the round in progress (its transaction commits or rolls back as a whole).
    func shutdown() {
        worker.shutdown()
    }

    /// Claims and applies the action due longest ago, if any (see the type's comment).
    func round(_ organizer: Organizer) throws -> Round {
        var claimed: ScheduledAction?
        do {
            let result = try store.transaction { session -> (ScheduledAction, Job?)? in
                guard let action = try session.schedule.claimDueScheduledAction(now: now()) else { return nil }
                claimed = action
                let job = try organizer.applyScheduled(action, requestID: "scheduled-" + action.id)
                return (try session.schedule.finishScheduledAction(id: action.id, state: .applied, jobID: job?.id, now: now()), job)
            }
            guard let (action, job) = result else {
                return .idle(next: try store.withSession(.read) { try $0.schedule.nextScheduledDue() })
            }
            metrics.finished(applied: true)
            logger.info("scheduled action applied", [
                "scheduled.id": action.id, "scheduled.kind": action.kind.rawValue, "event.id": action.eventID, "job.id": job?.id ?? "",
                "late_ms": "\(Int(((action.finishedAt ?? action.dueAt).timeIntervalSince(action.dueAt)) * 1_000))",
            ])
            // The job became visible with the commit: the runner may have looked before it.
            if job != nil { organizer.jobCreated() }
            return .applied(action)
        } catch where DatabaseOutage.isOutage(error) {
            throw error
        } catch {
            guard let action = claimed else { throw error }
            let reason: String
            if let refusal = error as? OrganizerError {
                reason = refusal.errorMessage
            } else {
                logger.error("scheduled action could not be applied", ["scheduled.id": action.id, "error": "\(error)"])
                reason = "The server could not apply it; its log has the error."
            }
            return .failed(try markFailed(action, reason: reason))
        }
    }

    /// Marks `action` failed with `reason`, under its lock, unless it is no longer pending.
    private func markFailed(_ action: ScheduledAction, reason: String) throws -> ScheduledAction {
        let failed = try store.transaction { session -> ScheduledAction in
            guard let locked = try session.schedule.lockedScheduledAction(id: action.id), locked.state == .pending else { return action }
            return try session.schedule.finishScheduledAction(id: action.id, state: .failed, reason: reason, now: now())
        }
        metrics.finished(applied: false)
        logger.warning("scheduled action failed: it can no longer apply", [
            "scheduled.id": action.id, "scheduled.kind": action.kind.rawValue, "event.id": action.eventID, "reason": reason,
        ])
        return failed
    }

    /// The scheduler thread's state: the database outage, if any.
    private final class Loop: WorkerLoop {
        let scheduler: Scheduler
        let organizer: Organizer
        var outage = DatabaseOutage()

        init(scheduler: Scheduler, organizer: Organizer) {
            self.scheduler = scheduler
            self.organizer = organizer
        }

        func step(stopping: Bool) -> Worker.Next {
            if stopping { return .done }
            let logger = scheduler.logger
            do {
                let round = try scheduler.round(organizer)
                let time = scheduler.now()
                outage.recovered(at: time, logger: logger, resumed: "database available again; scheduled actions resume")
                guard case .idle(let next) = round else { return .again }
                var wake = time.addingTimeInterval(scheduler.settings.pollInterval)
                // A row due now that was not claimed is another's (being applied or edited): look
                // again shortly rather than at once.
                if let next { wake = min(wake, max(next, time.addingTimeInterval(0.1))) }
                return .sleep(until: wake)
            } catch where DatabaseOutage.isOutage(error) {
                let delay = outage.failed(error, at: scheduler.now(), logger: logger, waiting: "database unavailable; scheduled actions wait for it")
                return .sleep(until: scheduler.now().addingTimeInterval(delay))
            } catch {
                logger.error("scheduler error", ["error": "\(error)"])
                return .sleep(until: scheduler.now().addingTimeInterval(scheduler.settings.pollInterval))
            }
        }
    }
}
