//! The statements the log runs. Every connection's `search_path` is the log's
//! schema, so the names here are unqualified.

/// A stream's metadata.
pub(super) const STREAM: &str =
    "SELECT head, parent, parent_at, created_at, floor FROM streams WHERE name = $1";
/// Every stream, in byte order of their names (the column's collation is `C`).
pub(super) const STREAMS: &str =
    "SELECT name, head, parent, parent_at, created_at, floor FROM streams ORDER BY name";
/// The append of the blocks starting at `$4` (head `$2` before, `$3` after), in
/// one statement and so one transaction (see the schema).
pub(super) const APPEND: &str =
    "SELECT appended, head FROM append_blocks($1, $2, $3, $4, $5, $6, $7)";
/// The rows of a stream's own events holding `$2..=$3`: from the last row starting
/// at or before `$2` (a block may begin before it) on, one range of the primary
/// key. Read through a portal for a long range.
pub(super) const SCAN_ALL: &str = "SELECT seq, last_seq, record FROM events \
     WHERE stream = $1 AND seq <= $3 AND seq >= coalesce( \
         (SELECT max(seq) FROM events WHERE stream = $1 AND seq <= $2), $2) \
     ORDER BY seq";
/// Stores a snapshot, replacing one at the same sequence number.
pub(super) const PUT_SNAPSHOT: &str = "INSERT INTO snapshots (stream, seq, record) VALUES ($1, $2, $3) \
     ON CONFLICT (stream, seq) DO UPDATE SET record = excluded.record";
/// One snapshot.
pub(super) const GET_SNAPSHOT: &str = "SELECT record FROM snapshots WHERE stream = $1 AND seq = $2";
/// A stream's snapshots' sequence numbers.
pub(super) const SNAPSHOT_SEQS: &str = "SELECT seq FROM snapshots WHERE stream = $1 ORDER BY seq";
/// Whether a stream exists.
pub(super) const EXISTS: &str = "SELECT 1 FROM streams WHERE name = $1";
/// A fork's parent, locked against compaction until the fork commits.
pub(super) const LOCK_PARENT: &str = "SELECT head, floor FROM streams WHERE name = $1 FOR SHARE";
/// Creates a fork (nothing if the name was taken meanwhile).
pub(super) const CREATE_FORK: &str = "INSERT INTO streams (name, head, parent, parent_at, created_at) \
     VALUES ($1, $2, $3, $2, $4) ON CONFLICT (name) DO NOTHING";
/// A stream being compacted, locked against appends and forks.
pub(super) const LOCK_STREAM: &str = "SELECT floor FROM streams WHERE name = $1 FOR UPDATE";
/// The first fork (by name) that reads events of `$1` up to `$2`.
pub(super) const DEPENDENT_FORK: &str = "SELECT name, parent_at FROM streams \
     WHERE parent = $1 AND parent_at < $2 ORDER BY name LIMIT 1";
/// Raises a stream's compaction floor.
pub(super) const SET_FLOOR: &str = "UPDATE streams SET floor = greatest(floor, $2) WHERE name = $1";
/// The row holding a stream's events on both sides of `$2` (its last row starting
/// at or before `$2`, if it ends after it).
pub(super) const STRADDLING: &str = "SELECT seq, last_seq, record FROM events \
     WHERE stream = $1 AND last_seq > $2 AND seq = \
         (SELECT max(seq) FROM events WHERE stream = $1 AND seq <= $2)";
/// Drops a stream's rows starting up to `$2`, but the one starting at `$3`, and
/// counts their events up to `$2`.
pub(super) const DROP_EVENTS: &str = "WITH dropped AS ( \
         DELETE FROM events WHERE stream = $1 AND seq <= $2 AND seq <> $3 \
         RETURNING seq, last_seq) \
     SELECT coalesce(sum(least(last_seq, $2) - seq + 1), 0)::bigint FROM dropped";
/// Stores the rewritten tail of a block (a row of events after a compaction floor).
pub(super) const INSERT_ROW: &str =
    "INSERT INTO events (stream, seq, last_seq, record) VALUES ($1, $2, $3, $4)";
/// Drops a stream's snapshots before `$2`.
pub(super) const DROP_SNAPSHOTS: &str = "DELETE FROM snapshots WHERE stream = $1 AND seq < $2";
/// A transaction that writes a commit record, so that its synchronous commit waits
/// for the write-ahead log to be flushed up to it, and so for every earlier commit
/// (those of [`Durability::Buffered`](askuser_store::Durability::Buffered) appends too).
pub(super) const FLUSH: &str =
    "BEGIN; SET LOCAL synchronous_commit = on; SELECT txid_current(); COMMIT";
/// Turns off the wait for the write-ahead log's flush, for one transaction.
pub(super) const BUFFERED: &str = "SET LOCAL synchronous_commit = off";
/// A notification on the log's channel (`$1`) naming a stream (`$2`), sent when
/// the transaction commits: the appends send their own (see the schema); a fork
/// and a compaction send this one, for [`Log::wait_changed`](askuser_store::Log::wait_changed).
pub(super) const NOTIFY: &str = "SELECT pg_notify($1, $2)";

/// Records that this connection's server process no longer waits.
pub(super) const UNWATCH: &str =
    "UPDATE watchers SET watching = false WHERE pid = pg_backend_pid()";

/// Takes or renews a presence lease at the database's time (`$1` stream, `$2`
/// holder, `$3` origin as JSON text, `$4` ttl in milliseconds).
pub(super) const RENEW_LEASE: &str = "INSERT INTO presence (stream, holder, origin, renewed_at, ttl_ms) \
     VALUES ($1, $2, $3, (extract(epoch from clock_timestamp()) * 1000)::bigint, $4) \
     ON CONFLICT (stream, holder) DO UPDATE SET origin = excluded.origin, \
     renewed_at = excluded.renewed_at, ttl_ms = excluded.ttl_ms, ended_at = NULL";

/// How many leases are live at the database's time (neither ended nor lapsed).
pub(super) const LIVE_LEASES: &str = "SELECT count(*) FROM presence \
     WHERE ended_at IS NULL \
         AND renewed_at + ttl_ms > (extract(epoch from clock_timestamp()) * 1000)::bigint";

/// Forgets leases that ended or expired more than a day ago.
pub(super) const PRUNE_LEASES: &str = "DELETE FROM presence \
     WHERE coalesce(ended_at, renewed_at + ttl_ms) \
         < (extract(epoch from clock_timestamp()) * 1000)::bigint - 86400000";

/// Ends a lease at the database's time.
pub(super) const END_LEASE: &str = "UPDATE presence \
     SET ended_at = (extract(epoch from clock_timestamp()) * 1000)::bigint \
     WHERE stream = $1 AND holder = $2 AND ended_at IS NULL";

/// The database's time, then the leases on stream `$1` (at most 4096, the latest
/// renewed first).
pub(super) const LEASES_ON: &str = "SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint, \
     stream, holder, origin, renewed_at, ttl_ms, ended_at FROM presence \
     WHERE stream = $1 ORDER BY renewed_at DESC LIMIT 4096";

/// The database's time, then the latest leases (at most 4096, the latest renewed
/// first).
pub(super) const LEASES: &str = "SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint, \
     stream, holder, origin, renewed_at, ttl_ms, ended_at FROM presence \
     ORDER BY renewed_at DESC LIMIT 4096";
