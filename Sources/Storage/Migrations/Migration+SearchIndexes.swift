// Version 13: the event page without work that grows with the event: its check-in and email
// counts kept in the tallies, and an index for the ticket search of the dashboard and the admin API.
//
// Counts: the page counted the event's active check-ins (a join of `checkins` with `passes`) and
// its emails by state (`ticket_emails`) on every request: 118 ms and 44 ms inside PostgreSQL on an
// event of 100,000 tickets, two thirds checked in and every one emailed. They become four more
// columns of the tallies of migration 7, kept by triggers like the others: `checked_in` changes
// when a pass's "active and checked in" (`status`, `checked_in_at`, which a check-in and its undo
// write with the `checkins` row) changes; `emails_*` when a `ticket_emails` row is written, changes
// state or goes. Existing rows are counted once, as changes the next fold takes up.
//
// Search:
// The search is a case-insensitive substring of `search_text` (`LIKE '%term%'`), which no B-tree
// index serves: a term that matches few tickets read every ticket of the event (45 ms inside
// PostgreSQL, 40 ms in SQLite, on an event of 100,000; hundreds of milliseconds per request under
// concurrent load).
//
// PostgreSQL: a GIN trigram index (`pg_trgm`, shipped with PostgreSQL's own packages and a trusted
// extension since PostgreSQL 13, so the database's owner may create it without being a superuser).
// `LIKE '%term%'` uses it as it is; the planner still reads the event in id order when it expects
// the page to fill early. Where the extension cannot be created (a server built without contrib,
// a role without CREATE on the database) the migration goes on without the index and searches keep
// their old plan; creating the extension and the index later (docs/admin.md) enables it.
//
// SQLite: an FTS5 table with the trigram tokenizer over `search_text` (external content: the text
// stays in `passes`; triggers keep the index in step with inserts, updates and deletes). FTS5 only
// serves a LIKE without ESCAPE, so terms holding `%`, `_` or `\` keep the scan.

extension Migration {
    static let searchIndexes = Migration(
        version: 13,
        name: "check-in and email tallies; trigram index for the ticket search",
        postgres: """
        ALTER TABLE event_tallies ADD COLUMN checked_in BIGINT NOT NULL DEFAULT 0, ADD COLUMN emails_queued BIGINT NOT NULL DEFAULT 0,
            ADD COLUMN emails_sent BIGINT NOT NULL DEFAULT 0, ADD COLUMN emails_failed BIGINT NOT NULL DEFAULT 0;
        ALTER TABLE event_tally_changes ADD COLUMN checked_in BIGINT NOT NULL DEFAULT 0, ADD COLUMN emails_queued BIGINT NOT NULL DEFAULT 0,
            ADD COLUMN emails_sent BIGINT NOT NULL DEFAULT 0, ADD COLUMN emails_failed BIGINT NOT NULL DEFAULT 0;
        INSERT INTO event_tally_changes (event_id, job_id, checked_in)
        SELECT event_id, '', count(*) FROM passes WHERE event_id IS NOT NULL AND status = 'active' AND checked_in_at IS NOT NULL GROUP BY event_id;
        INSERT INTO event_tally_changes (event_id, job_id, emails_queued, emails_sent, emails_failed)
        SELECT event_id, '', count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'sent'), count(*) FILTER (WHERE state = 'failed')
        FROM ticket_emails WHERE event_id IS NOT NULL GROUP BY event_id;

        CREATE FUNCTION tally_pass_checked_in_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.event_id IS NOT NULL THEN
                INSERT INTO event_tally_changes (event_id, job_id, checked_in)
                VALUES (NEW.event_id, '', CASE WHEN NEW.status = 'active' AND NEW.checked_in_at IS NOT NULL THEN 1 ELSE -1 END);
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER passes_tally_checked_in AFTER UPDATE OF status, checked_in_at ON passes FOR EACH ROW
            WHEN ((OLD.status = 'active' AND OLD.checked_in_at IS NOT NULL) IS DISTINCT FROM (NEW.status = 'active' AND NEW.checked_in_at IS NOT NULL))
            EXECUTE FUNCTION tally_pass_checked_in_changed();

        CREATE FUNCTION tally_ticket_emails_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, emails_queued, emails_sent, emails_failed)
            SELECT event_id, '', count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'sent'),
                count(*) FILTER (WHERE state = 'failed')
            FROM new_rows WHERE event_id IS NOT NULL GROUP BY event_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER ticket_emails_tally_insert AFTER INSERT ON ticket_emails
            REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tally_ticket_emails_inserted();
        CREATE FUNCTION tally_ticket_emails_updated() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, emails_queued, emails_sent, emails_failed)
            SELECT event_id, '', sum(queued), sum(sent), sum(failed) FROM (
                SELECT event_id, CASE WHEN state = 'queued' THEN 1 ELSE 0 END AS queued, CASE WHEN state = 'sent' THEN 1 ELSE 0 END AS sent,
                    CASE WHEN state = 'failed' THEN 1 ELSE 0 END AS failed FROM new_rows
                UNION ALL
                SELECT event_id, CASE WHEN state = 'queued' THEN -1 ELSE 0 END, CASE WHEN state = 'sent' THEN -1 ELSE 0 END,
                    CASE WHEN state = 'failed' THEN -1 ELSE 0 END FROM old_rows) t
            WHERE event_id IS NOT NULL GROUP BY event_id
            HAVING sum(queued) <> 0 OR sum(sent) <> 0 OR sum(failed) <> 0;
            RETURN NULL;
        END $$;
        CREATE TRIGGER ticket_emails_tally_update AFTER UPDATE ON ticket_emails
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tally_ticket_emails_updated();
        CREATE FUNCTION tally_ticket_emails_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, emails_queued, emails_sent, emails_failed)
            SELECT event_id, '', -count(*) FILTER (WHERE state = 'queued'), -count(*) FILTER (WHERE state = 'sent'),
                -count(*) FILTER (WHERE state = 'failed')
            FROM old_rows WHERE event_id IS NOT NULL GROUP BY event_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER ticket_emails_tally_delete AFTER DELETE ON ticket_emails
            REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tally_ticket_emails_deleted();

        DO $$
        BEGIN
            CREATE EXTENSION IF NOT EXISTS pg_trgm;
        EXCEPTION WHEN OTHERS THEN
            RAISE WARNING 'pg_trgm is not available (%); ticket search runs without its index', SQLERRM;
        END
        $$;
        DO $$
        BEGIN
            IF EXISTS (SELECT 1 FROM pg_opclass WHERE opcname = 'gin_trgm_ops') THEN
                CREATE INDEX passes_search_trgm ON passes USING gin (search_text gin_trgm_ops);
            END IF;
        END
        $$;
        """,
        sqlite: """
        ALTER TABLE event_tallies ADD COLUMN checked_in INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE event_tallies ADD COLUMN emails_queued INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE event_tallies ADD COLUMN emails_sent INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE event_tallies ADD COLUMN emails_failed INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE event_tally_changes ADD COLUMN checked_in INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE event_tally_changes ADD COLUMN emails_queued INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE event_tally_changes ADD COLUMN emails_sent INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE event_tally_changes ADD COLUMN emails_failed INTEGER NOT NULL DEFAULT 0;
        INSERT INTO event_tally_changes (event_id, job_id, checked_in)
        SELECT event_id, '', count(*) FROM passes WHERE event_id IS NOT NULL AND status = 'active' AND checked_in_at IS NOT NULL GROUP BY event_id;
        INSERT INTO event_tally_changes (event_id, job_id, emails_queued, emails_sent, emails_failed)
        SELECT event_id, '', sum(state = 'queued'), sum(state = 'sent'), sum(state = 'failed')
        FROM ticket_emails WHERE event_id IS NOT NULL GROUP BY event_id;
        CREATE TRIGGER passes_tally_checked_in AFTER UPDATE OF status, checked_in_at ON passes
        WHEN NEW.event_id IS NOT NULL
            AND (OLD.status = 'active' AND OLD.checked_in_at IS NOT NULL) IS NOT (NEW.status = 'active' AND NEW.checked_in_at IS NOT NULL)
        BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, checked_in)
            VALUES (NEW.event_id, '', CASE WHEN NEW.status = 'active' AND NEW.checked_in_at IS NOT NULL THEN 1 ELSE -1 END);
        END;
        CREATE TRIGGER ticket_emails_tally_insert AFTER INSERT ON ticket_emails WHEN NEW.event_id IS NOT NULL BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, emails_queued, emails_sent, emails_failed)
            VALUES (NEW.event_id, '', NEW.state = 'queued', NEW.state = 'sent', NEW.state = 'failed');
        END;
        CREATE TRIGGER ticket_emails_tally_update AFTER UPDATE OF state, event_id ON ticket_emails
        WHEN OLD.state IS NOT NEW.state OR OLD.event_id IS NOT NEW.event_id BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, emails_queued, emails_sent, emails_failed)
            SELECT OLD.event_id, '', -(OLD.state = 'queued'), -(OLD.state = 'sent'), -(OLD.state = 'failed') WHERE OLD.event_id IS NOT NULL;
            INSERT INTO event_tally_changes (event_id, job_id, emails_queued, emails_sent, emails_failed)
            SELECT NEW.event_id, '', NEW.state = 'queued', NEW.state = 'sent', NEW.state = 'failed' WHERE NEW.event_id IS NOT NULL;
        END;
        CREATE TRIGGER ticket_emails_tally_delete AFTER DELETE ON ticket_emails WHEN OLD.event_id IS NOT NULL BEGIN
            INSERT INTO event_tally_changes (event_id, job_id, emails_queued, emails_sent, emails_failed)
            VALUES (OLD.event_id, '', -(OLD.state = 'queued'), -(OLD.state = 'sent'), -(OLD.state = 'failed'));
        END;
        CREATE VIRTUAL TABLE passes_search USING fts5(search_text, content = 'passes', content_rowid = 'id', tokenize = 'trigram');
        INSERT INTO passes_search (passes_search) VALUES ('rebuild');
        CREATE TRIGGER passes_search_insert AFTER INSERT ON passes BEGIN
            INSERT INTO passes_search (rowid, search_text) VALUES (new.id, new.search_text);
        END;
        CREATE TRIGGER passes_search_delete AFTER DELETE ON passes BEGIN
            INSERT INTO passes_search (passes_search, rowid, search_text) VALUES ('delete', old.id, old.search_text);
        END;
        CREATE TRIGGER passes_search_update AFTER UPDATE OF search_text ON passes BEGIN
            INSERT INTO passes_search (passes_search, rowid, search_text) VALUES ('delete', old.id, old.search_text);
            INSERT INTO passes_search (rowid, search_text) VALUES (new.id, new.search_text);
        END;
        """
    )
}
