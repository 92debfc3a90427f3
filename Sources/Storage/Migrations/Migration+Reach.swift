// Version 7: reach (which phones hold the current pass), running tallies per event and re-push
// job, and roles on admin tokens.
//
// Reach:
// - `registrations.told_revision`/`told_at`: the last `lastUpdated` tag the changed-serials list
//   returned to the device in an answer that listed this pass, and when.
// - `passes.served_revision`/`served_at`: the last revision of the pass served to any device
//   (a 200 of it, or a 304 confirming it), and when. Fetches carry no device id, so this is known
//   per pass only.
// - Registrations carry copies of what they are counted by: their pass's id, event, current
//   revision, served revision and the re-push job that last bumped it (`passes.job_id`). A
//   registration is up to date when `told_revision >= pass_revision AND served_revision >=
//   pass_revision`, a condition on its own row, so every change of it (list, fetch, bump,
//   deletion) is decided under that row's lock. The copies are written in the transaction that
//   changes the pass (after its outbox rows, the dispatcher's lock order: outbox, then
//   registrations), and filled in on insert by a trigger that reads the pass `FOR SHARE`.
//
// Tallies: `event_tallies` holds per (event, job) the counts the admin API reports (tickets,
// voided, registrations, registrations up to date, pushes pending, delivered, failed); `job_id` ''
// collects what no job owns. Triggers on passes, registrations and push_outbox append each change
// as a row of `event_tally_changes` (an insert: no shared row is locked while the changing
// transaction goes on), the dispatcher appends delivered and failed pushes, and a worker folds the
// changes into `event_tallies` every second. A read sums the tallies and the changes not folded
// yet, in one statement (one snapshot): a few rows whatever the size of the event.
//
// Admin tokens get a role (admin, viewer, scanner; existing tokens are admins) and names unique
// among active tokens; of existing active duplicates the newest keeps the name and the others are
// renamed `name (token ID)`, so no token stops working.

extension Migration {
    static let reach = Migration(
        version: 7,
        name: "reach, event tallies, admin token roles",
        postgres: reachPostgres,
        sqlite: reachSQLite
    )
}
