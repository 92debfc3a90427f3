import Foundation
import Storage

/// A job with how far it got: a re-push job's reach (its share of the event's tallies), an
/// email job's emails by state.
struct JobProgress: Sendable, Equatable {
    var job: Job
    /// A re-push job of an event: the phones it is to reach and the pushes it sent.
    var reach: Reach?
    /// An email job: its emails as they are now.
    var emails: EmailCounts?
}

extension Organizer {
    /// The job with its progress; `notFound` when there is none (or it is not an id).
    func job(id: String?) throws -> JobProgress {
        guard let id, AdminIdentifiers.isPlausible(id) else { throw OrganizerError.notFound("No such job.") }
        let progress = try store.withSession(.read) { session -> JobProgress? in
            guard let job = try session.jobs.job(id: id) else { return nil }
            if job.isEmail { return JobProgress(job: job, emails: try session.mail.emailCounts(jobID: job.id)) }
            return JobProgress(job: job, reach: try Reach.of(job, in: session))
        }
        guard let progress else { throw OrganizerError.notFound("No such job.") }
        return progress
    }
}
