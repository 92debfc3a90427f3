public import Foundation

extension JobOperations {
    /// Creates the job that queues the email of every ticket of the event with an address, active,
    /// not queued already, and not sent yet unless `resend`; a ticket of an order is emailed with
    /// its order, by the order's email under the same rules (counted per ticket). `total` is how
    /// many tickets there are now; the job corrects it to what it queued when it finishes.
    public func createEmailJob(eventID: String, resend: Bool, now: Date) throws -> Job {
        let kind = resend ? Job.emailResendKind : Job.emailKind
        guard let row = try first("""
            INSERT INTO jobs (id, kind, event_id, state, total, created_at)
            VALUES (\(RandomIdentifier.make()), \(kind), \(eventID), 'pending',
                (SELECT count(*) FROM passes p LEFT JOIN ticket_emails t ON t.pass_id = p.id
                 WHERE p.event_id = \(eventID) AND p.attendee_email IS NOT NULL AND p.status = 'active' AND p.order_id IS NULL
                   AND \(Self.emailEligible(resend: resend)))
                + (SELECT count(*) FROM orders o JOIN passes p ON p.order_id = o.id
                 WHERE o.event_id = \(eventID) AND o.buyer_email IS NOT NULL AND p.status = 'active'
                   AND \(Self.orderEmailEligible(resend: resend))),
                \(now.storageMillis))
            RETURNING \(Self.jobColumns)
            """)
        else { throw StorageError(.backend, "insert returned no row") }
        return try Job(row: row)
    }

    /// The tickets an event send queues, as a condition on `t` (their `ticket_emails` row, if any):
    /// never those queued already; those sent only when resending.
    static func emailEligible(resend: Bool) -> SQLQuery {
        resend ? "(t.state IS NULL OR t.state <> 'queued')" : "(t.state IS NULL OR t.state = 'failed')"
    }

    /// The orders an event send queues, as a condition on `o`: the same rules on the order's email.
    static func orderEmailEligible(resend: Bool) -> SQLQuery {
        resend ? "(o.email_state IS NULL OR o.email_state <> 'queued')" : "(o.email_state IS NULL OR o.email_state = 'failed')"
    }

    /// Runs the next batch of an email job in one transaction: the next `batchSize` tickets of the
    /// event after the job's cursor are looked at, those eligible are queued (`enqueueEmails`, for
    /// this job), and the cursor, `done` (tickets queued) and the lease advance; when no ticket is
    /// left the job is done and `total` becomes what it queued. A crash between batches resumes at
    /// the cursor, so no ticket is queued twice by one job.
    public func runEmailBatch(jobID: String, batchSize: Int, now: Date, lease: Duration = .seconds(60)) throws -> EmailBatch {
        try transaction {
            guard let (job, eventID) = try lockRunnableJob(jobID) else {
                return EmailBatch(job: try lockedJob(jobID), queued: 0)
            }
            let ids = try execute("""
                SELECT id FROM passes WHERE event_id = \(eventID) AND id > \(job.cursor) ORDER BY id LIMIT \(batchSize)
                """).map { try $0.int64("id") }
            let last = ids.last ?? job.cursor
            let resend = job.kind == Job.emailResendKind
            var queued = ids.isEmpty ? [] : try session.mail.enqueueEmails(
                where: "p.event_id = \(eventID) AND p.id > \(job.cursor) AND p.id <= \(last)", jobID: jobID, resend: resend, now: now
            )
            // An order is looked at in the batch of its first ticket, so once by the job: its
            // tickets in the batch (by the order index), none before it.
            if !ids.isEmpty {
                queued += try session.mail.enqueueOrderEmails(
                    where: """
                        o.id IN (SELECT p.order_id FROM passes p
                            WHERE p.event_id = \(eventID) AND p.id > \(job.cursor) AND p.id <= \(last) AND p.order_id IS NOT NULL)
                        AND NOT EXISTS (SELECT 1 FROM passes q WHERE q.order_id = o.id AND q.id <= \(job.cursor))
                        """,
                    jobID: jobID, resend: resend, now: now
                )
            }
            // Finished, the job's total is what it queued.
            let updated = try advanceJob(
                jobID, cursor: last, done: queued.count, finished: ids.count < batchSize, totalIsDone: true, now: now, lease: lease
            )
            return EmailBatch(job: updated, queued: queued.count)
        }
    }
}

/// What one batch of an email job did.
public struct EmailBatch: Sendable, Equatable {
    /// The job after the batch.
    public var job: Job
    /// Tickets whose email the batch queued.
    public var queued: Int
}
