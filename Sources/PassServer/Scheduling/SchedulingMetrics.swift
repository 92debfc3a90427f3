import Foundation
import Synchronization

/// What this process's announcements and scheduled actions did since it started (for `/metrics`;
/// the rows by state come from the database).
final class SchedulingMetrics: Sendable {
    struct Counts: Sendable, Equatable {
        /// Announcements sent, by whether they alert the lock screen.
        var notifyingSent = 0
        var silentSent = 0
        /// Scheduled actions this process applied, or found unable to apply.
        var applied = 0
        var failed = 0
    }

    private let counts = Mutex(Counts())

    var snapshot: Counts { counts.withLock { $0 } }

    func sent(notify: Bool) {
        counts.withLock { if notify { $0.notifyingSent += 1 } else { $0.silentSent += 1 } }
    }

    func finished(applied: Bool) {
        counts.withLock { if applied { $0.applied += 1 } else { $0.failed += 1 } }
    }
}

/// What the organizer operations need of scheduling: the announcements' pacing, whom to tell that
/// a scheduled action was saved (the scheduler, to look at its time), and the counters.
struct SchedulingAccess: Sendable {
    /// `ANNOUNCEMENT_INTERVAL` in seconds.
    var announcementInterval: TimeInterval = 600
    var scheduled: @Sendable () -> Void = {}
    var metrics = SchedulingMetrics()
}
