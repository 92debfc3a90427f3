// Version 3: what became of each push, in words, and the registrations APNs's answers pruned.
//
// `push_log.outcome` says what the dispatcher did with an attempt (delivered, logged, pruned,
// retried, failed, halted), so a push that `APNS_MODE=log` only logged is never mistaken for one
// APNs accepted. `registration_prunes` keeps, per pass, the newest registrations deleted because
// APNs said their push token is dead or belongs to another app (at most
// `RegistrationPrune.keptPerPass` per pass; older ones are dropped when a new one is added).

extension Migration {
    static let pushOutcomes = Migration(version: 3, name: "push outcomes and registration prunes") { db in
        """
        ALTER TABLE push_log ADD COLUMN outcome TEXT;
        CREATE TABLE registration_prunes (
            id \(db.serialKey),
            pass_type_identifier TEXT NOT NULL, serial_number TEXT NOT NULL,
            token_hash TEXT NOT NULL, status INTEGER NOT NULL, reason TEXT NOT NULL, pruned_at \(db.bigint) NOT NULL,
            FOREIGN KEY (pass_type_identifier, serial_number) REFERENCES passes (pass_type_identifier, serial_number) ON DELETE CASCADE);
        CREATE INDEX registration_prunes_pass ON registration_prunes (pass_type_identifier, serial_number, id);
        """
    }
}
