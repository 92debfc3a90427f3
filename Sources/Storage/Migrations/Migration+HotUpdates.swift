// Version 9: room on every page of the three tables an event edit rewrites, so the rewrite stays
// on the page (PostgreSQL's HOT update) and touches no index.
//
// A re-push bumps a pass's `revision` and `modified_at` and gives its registrations the new
// revision; claiming an outbox row sets `claimed_until`. None of these columns is indexed, so
// PostgreSQL can keep the new row version on the same page without adding an entry to every index
// of the table, if the page has room for it. With full pages (the default fill factor of 100)
// every bump and every claim wrote an entry into each index (four on passes, three on
// registrations, four on push_outbox). Half-full pages leave room for a new version of every row
// of the page, so one whole event edit is written in place: measured on 30,000 tickets, the job's
// pass and registration updates took 1.5 s with full pages (a quarter free on passes made 30 % of
// the bumps HOT) and 0.4 s with half-full ones (88 % to 92 % HOT); PostgreSQL reclaims the old
// versions when it next touches the page, making room for the next edit. At 100,000 pushes,
// claiming fell from 5.7 s to 1.2 s. The price is disk: these tables take about twice the pages.
// Pages written before this migration stay full until the table is rewritten (`VACUUM FULL`, or
// pg_repack without a lock). SQLite has no such setting.

extension Migration {
    static let hotUpdates = Migration(
        version: 9,
        name: "room on each page for in-place updates",
        postgres: """
        ALTER TABLE push_outbox SET (fillfactor = 50);
        ALTER TABLE passes SET (fillfactor = 50);
        ALTER TABLE registrations SET (fillfactor = 50);
        """,
        sqlite: ""
    )
}
