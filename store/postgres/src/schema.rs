//! The log's tables, created and migrated by askuser itself.
//!
//! Every table lives in one PostgreSQL schema (`askuser` unless chosen otherwise),
//! beside a version table, `schema_version`, holding one row: the number of the
//! last migration applied. Opening a log takes a transaction-scoped advisory lock
//! (so two processes opening a new database at once do not both migrate it),
//! creates the schema and the version table if they are missing, and applies the
//! migrations past the recorded version in that one transaction. A database whose
//! version is newer than this build knows is refused, not touched.

use postgres::Client;

use super::pool::database;
use askuser_store::{Result, StoreError};

/// The migrations, in order; migration `n` (1-based) brings the schema to version
/// `n`. `{schema}` and `{channel}` are replaced by the quoted schema name and the
/// notification channel. Never edit one that has shipped: add another.
const MIGRATIONS: &[&str] = &[
    // 1: streams, events, snapshots, and the append function.
    r#"
CREATE TABLE {schema}.streams (
    name text COLLATE "C" PRIMARY KEY,
    head bigint NOT NULL,
    parent text COLLATE "C",
    parent_at bigint,
    created_at bigint NOT NULL,
    floor bigint NOT NULL DEFAULT 0
);
CREATE INDEX streams_parent ON {schema}.streams (parent) WHERE parent IS NOT NULL;
CREATE TABLE {schema}.events (
    stream text COLLATE "C" NOT NULL,
    seq bigint NOT NULL,
    record bytea NOT NULL,
    PRIMARY KEY (stream, seq)
);
CREATE TABLE {schema}.snapshots (
    stream text COLLATE "C" NOT NULL,
    seq bigint NOT NULL,
    record bytea NOT NULL,
    PRIMARY KEY (stream, seq)
);
CREATE FUNCTION {schema}.append_events(
    p_stream text, p_expected bigint, p_records bytea[], p_at bigint, p_sync boolean,
    OUT appended boolean, OUT head bigint)
LANGUAGE plpgsql AS $fn$
BEGIN
    IF NOT p_sync THEN
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    IF p_expected = 0 THEN
        INSERT INTO {schema}.streams (name, head, created_at)
            VALUES (p_stream, 0, p_at) ON CONFLICT (name) DO NOTHING;
    END IF;
    SELECT s.head INTO head FROM {schema}.streams s WHERE s.name = p_stream FOR UPDATE;
    head := coalesce(head, 0);
    IF head <> p_expected THEN
        appended := false;
        RETURN;
    END IF;
    INSERT INTO {schema}.events (stream, seq, record)
        SELECT p_stream, p_expected + r.n, r.record
        FROM unnest(p_records) WITH ORDINALITY AS r(record, n);
    head := p_expected + cardinality(p_records);
    UPDATE {schema}.streams SET head = append_events.head WHERE name = p_stream;
    PERFORM pg_notify('{channel}', p_stream);
    appended := true;
END
$fn$;
"#,
    // 2: events stored in blocks of several (a row per block, keyed by its first
    // event, `last_seq` its last); rows of version 1 hold one event each. The
    // function of version 1 keeps working (one row per event) for processes
    // started before the migration (which read the blocks of others as damaged:
    // upgrade every host together).
    r"
ALTER TABLE {schema}.events ADD COLUMN last_seq bigint;
UPDATE {schema}.events SET last_seq = seq;
ALTER TABLE {schema}.events ALTER COLUMN last_seq SET NOT NULL;
ALTER TABLE {schema}.events ADD CONSTRAINT events_range CHECK (last_seq >= seq);
CREATE OR REPLACE FUNCTION {schema}.append_events(
    p_stream text, p_expected bigint, p_records bytea[], p_at bigint, p_sync boolean,
    OUT appended boolean, OUT head bigint)
LANGUAGE plpgsql AS $fn$
BEGIN
    IF NOT p_sync THEN
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    IF p_expected = 0 THEN
        INSERT INTO {schema}.streams (name, head, created_at)
            VALUES (p_stream, 0, p_at) ON CONFLICT (name) DO NOTHING;
    END IF;
    SELECT s.head INTO head FROM {schema}.streams s WHERE s.name = p_stream FOR UPDATE;
    head := coalesce(head, 0);
    IF head <> p_expected THEN
        appended := false;
        RETURN;
    END IF;
    INSERT INTO {schema}.events (stream, seq, last_seq, record)
        SELECT p_stream, p_expected + r.n, p_expected + r.n, r.record
        FROM unnest(p_records) WITH ORDINALITY AS r(record, n);
    head := p_expected + cardinality(p_records);
    UPDATE {schema}.streams SET head = append_events.head WHERE name = p_stream;
    PERFORM pg_notify('{channel}', p_stream);
    appended := true;
END
$fn$;
CREATE FUNCTION {schema}.append_blocks(
    p_stream text, p_expected bigint, p_head bigint, p_firsts bigint[], p_records bytea[],
    p_at bigint, p_sync boolean, OUT appended boolean, OUT head bigint)
LANGUAGE plpgsql AS $fn$
BEGIN
    IF NOT p_sync THEN
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    IF p_expected = 0 THEN
        INSERT INTO {schema}.streams (name, head, created_at)
            VALUES (p_stream, 0, p_at) ON CONFLICT (name) DO NOTHING;
    END IF;
    SELECT s.head INTO head FROM {schema}.streams s WHERE s.name = p_stream FOR UPDATE;
    head := coalesce(head, 0);
    IF head <> p_expected THEN
        appended := false;
        RETURN;
    END IF;
    INSERT INTO {schema}.events (stream, seq, last_seq, record)
        SELECT p_stream, r.first,
               coalesce(lead(r.first) OVER (ORDER BY r.first) - 1, p_head), r.record
        FROM unnest(p_firsts, p_records) AS r(first, record);
    head := p_head;
    UPDATE {schema}.streams SET head = append_blocks.head WHERE name = p_stream;
    PERFORM pg_notify('{channel}', p_stream);
    appended := true;
END
$fn$;
",
    // 3: presence leases: who waits on which stream, renewed every few seconds
    // (times in milliseconds on the database's clock; `origin` the agent's
    // origin as JSON text). A row whose lease ended or expired a day ago is
    // deleted by the next renewal.
    r#"
CREATE TABLE {schema}.presence (
    stream text COLLATE "C" NOT NULL,
    holder text COLLATE "C" NOT NULL,
    origin text NOT NULL,
    renewed_at bigint NOT NULL,
    ttl_ms bigint NOT NULL,
    ended_at bigint,
    PRIMARY KEY (stream, holder)
);
"#,
    // 4: an append notifies only when somebody else waits on its stream (or on
    // any change). A transaction that notifies takes a lock on the whole cluster
    // at its commit and keeps it through the commit's flush, so appends that
    // notified committed one at a time (32 agents on one log reached about
    // 0.65x the inquiries per second of one). A waiter records itself in
    // `watchers`: one row per server process, `stream` NULL for a wait on any
    // change, `except_log` the log whose appends it does not wait for (its
    // own: each of a log's connections names it in the setting `askuser.log`).
    // It does so under an advisory lock that every append holds (shared) from
    // its start, so an append either sees the row or committed before the
    // waiter reads the head. Unlogged: a row says who waits now, nothing to
    // keep past a crash.
    r#"
CREATE UNLOGGED TABLE {schema}.watchers (
    pid integer PRIMARY KEY,
    stream text COLLATE "C",
    except_log text,
    watching boolean NOT NULL
);
CREATE FUNCTION {schema}.watch(p_stream text, p_except_log text)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
    IF p_stream IS NULL THEN
        PERFORM pg_advisory_xact_lock(hashtext('{channel}'));
    ELSE
        PERFORM pg_advisory_xact_lock(hashtext('{channel}'), hashtext(p_stream));
    END IF;
    INSERT INTO {schema}.watchers (pid, stream, except_log, watching)
        VALUES (pg_backend_pid(), p_stream, p_except_log, true)
        ON CONFLICT (pid) DO UPDATE SET stream = excluded.stream,
            except_log = excluded.except_log, watching = true;
END
$fn$;
CREATE OR REPLACE FUNCTION {schema}.append_blocks(
    p_stream text, p_expected bigint, p_head bigint, p_firsts bigint[], p_records bytea[],
    p_at bigint, p_sync boolean, OUT appended boolean, OUT head bigint)
LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(hashtext('{channel}'));
    PERFORM pg_advisory_xact_lock_shared(hashtext('{channel}'), hashtext(p_stream));
    IF NOT p_sync THEN
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    IF p_expected = 0 THEN
        INSERT INTO {schema}.streams (name, head, created_at)
            VALUES (p_stream, 0, p_at) ON CONFLICT (name) DO NOTHING;
    END IF;
    SELECT s.head INTO head FROM {schema}.streams s WHERE s.name = p_stream FOR UPDATE;
    head := coalesce(head, 0);
    IF head <> p_expected THEN
        appended := false;
        RETURN;
    END IF;
    INSERT INTO {schema}.events (stream, seq, last_seq, record)
        SELECT p_stream, r.first,
               coalesce(lead(r.first) OVER (ORDER BY r.first) - 1, p_head), r.record
        FROM unnest(p_firsts, p_records) AS r(first, record);
    head := p_head;
    UPDATE {schema}.streams SET head = append_blocks.head WHERE name = p_stream;
    IF EXISTS (SELECT 1 FROM {schema}.watchers w
               WHERE w.watching AND (w.stream IS NULL OR w.stream = p_stream)
                 AND (w.except_log IS NULL
                      OR w.except_log IS DISTINCT FROM current_setting('askuser.log', true))) THEN
        PERFORM pg_notify('{channel}', p_stream);
    END IF;
    appended := true;
END
$fn$;
"#,
];

/// The schema version this build writes.
pub(super) const VERSION: i32 = 4;

/// The longest schema name, in bytes (the notification channel adds to it and
/// PostgreSQL identifiers stop at 63 bytes).
const MAX_SCHEMA_NAME: usize = 40;

/// Checks a schema name: a lowercase letter or `_`, then up to 39 lowercase
/// letters, digits or `_`.
pub(super) fn check_schema_name(name: &str) -> Result<()> {
    let mut bytes = name.bytes();
    let first_ok = bytes
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b == b'_');
    let rest_ok = bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if first_ok && rest_ok && name.len() <= MAX_SCHEMA_NAME {
        Ok(())
    } else {
        Err(StoreError::BadLocation {
            location: format!("schema {name:?}"),
            reason: "a schema name is 1 to 40 of a-z, 0-9 and _, not starting with a digit"
                .to_owned(),
        })
    }
}

/// The notification channel of the log in `schema`.
pub(super) fn channel(schema: &str) -> String {
    format!("askuser_{schema}")
}

/// Creates the schema or brings it to [`VERSION`].
pub(super) fn migrate(client: &mut Client, schema: &str) -> Result<()> {
    let quoted = format!("\"{schema}\"");
    let mut tx = client.transaction().map_err(database)?;
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtext('askuser schema ' || $1))",
        &[&schema],
    )
    .map_err(database)?;
    tx.batch_execute(&format!(
        "CREATE SCHEMA IF NOT EXISTS {quoted};
         CREATE TABLE IF NOT EXISTS {quoted}.schema_version (version integer NOT NULL);"
    ))
    .map_err(database)?;
    let row = tx
        .query_opt(&format!("SELECT version FROM {quoted}.schema_version"), &[])
        .map_err(database)?;
    let current: i32 = if let Some(row) = row {
        row.try_get(0).map_err(database)?
    } else {
        tx.execute(
            &format!("INSERT INTO {quoted}.schema_version (version) VALUES (0)"),
            &[],
        )
        .map_err(database)?;
        0
    };
    if current > VERSION {
        return Err(StoreError::Database(format!(
            "the log's tables in schema {schema:?} are at version {current}, newer than this askuser knows (up to {VERSION}): upgrade askuser"
        )));
    }
    let channel = channel(schema);
    for (index, migration) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(current.try_into().unwrap_or(0))
    {
        let sql = migration
            .replace("{schema}", &quoted)
            .replace("{channel}", &channel);
        tx.batch_execute(&sql).map_err(|error| {
            StoreError::Database(format!(
                "migrating the log's tables to version {}: {}",
                index + 1,
                super::pool::describe(&error)
            ))
        })?;
    }
    if current < VERSION {
        tx.execute(
            &format!("UPDATE {quoted}.schema_version SET version = $1"),
            &[&VERSION],
        )
        .map_err(database)?;
    }
    // The waits of server processes that are gone (a connection cut while it
    // waited): their rows would only cost notifications nobody reads.
    tx.batch_execute(&format!(
        "DELETE FROM {quoted}.watchers w \
         WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = w.pid)"
    ))
    .map_err(database)?;
    tx.commit().map_err(database)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_are_plain_identifiers() {
        for good in ["askuser", "_t1", "team_a", &"a".repeat(40)] {
            assert!(check_schema_name(good).is_ok(), "{good}");
        }
        for bad in ["", "1a", "A", "a-b", "a\"b", "a b", &"a".repeat(41)] {
            assert!(check_schema_name(bad).is_err(), "{bad}");
        }
        assert_eq!(VERSION as usize, MIGRATIONS.len());
    }
}
