// Version 20: what Google Wallet told us about our tickets.
//
// - `google_wallet_tickets`: one row per ticket Google sent a save or delete callback for: saved
//   in Google Wallet now or not, when it was first saved, and when the last callback came. The
//   row goes with the pass.
// - `google_wallet_events`: per event, how many of its tickets are saved in Google Wallet now,
//   changed in the transaction that changes a ticket's row (so the event pages and lists read one
//   row, never count tickets).
// - `google_wallet_nonces`: the nonce of every callback taken, so that Google's retries of one
//   delivery count once; the retention sweep removes nonces older than Google retries for
//   (`received_at`, indexed).

extension Migration {
    static let googleWallet = Migration(version: 20, name: "Google Wallet saves and deletions, callback nonces") { db in
        """
        CREATE TABLE google_wallet_tickets (
            pass_id \(db.bigint) PRIMARY KEY REFERENCES passes(id) ON DELETE CASCADE,
            event_id TEXT NOT NULL, saved INTEGER NOT NULL CHECK (saved IN (0, 1)),
            first_saved_at \(db.bigint), last_event_at \(db.bigint) NOT NULL);
        CREATE TABLE google_wallet_events (
            event_id TEXT PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
            saved \(db.bigint) NOT NULL DEFAULT 0);
        CREATE TABLE google_wallet_nonces (nonce TEXT PRIMARY KEY, received_at \(db.bigint) NOT NULL);
        CREATE INDEX google_wallet_nonces_received ON google_wallet_nonces (received_at);
        """
    }
}
