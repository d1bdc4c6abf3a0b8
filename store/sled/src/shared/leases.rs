//! The owner's presence leases, bounded per client: one process (told by the
//! peer credentials of its connection) holds at most [`PER_PROCESS`](askuser_store::presence::PER_PROCESS) live
//! leases, and the last [`RESERVED`](askuser_store::presence::RESERVED) places
//! of the table are kept for processes holding fewer than
//! [`FEW`](askuser_store::presence::FEW), so a real agent started after a flood
//! still gets its presence ([`admit_new_lease`], the rule both backends keep).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use askuser_core::AgentOrigin;
use askuser_store::presence::{LeaseTable, admit_new_lease};
use askuser_store::{Leases, Result, Timestamp};

/// A process asking for presence, by the id its connection's peer credentials
/// give (this process's own id for its own calls).
pub(super) type Client = u32;

/// A lease's key: its stream and holder.
type Key = (String, String);

/// The lease table, with which process took each lease and until when it
/// lasts (so counting the live ones clones nothing).
#[derive(Debug, Default)]
pub(super) struct Presence {
    table: LeaseTable,
    taken: Mutex<HashMap<Key, (Client, Timestamp)>>,
}

impl Presence {
    /// Takes or renews `holder`'s lease on `stream` for `client`: a new one only
    /// where [`admit_new_lease`] lets `client` take it.
    ///
    /// # Errors
    /// [`StoreError::BadLease`] saying which bound was reached; the table's own.
    pub(super) fn renew(
        &self,
        client: Client,
        (stream, holder): (&str, &str),
        origin: &AgentOrigin,
        ttl: Duration,
        now: Timestamp,
    ) -> Result<()> {
        let key = (stream.to_owned(), holder.to_owned());
        let mut taken = self.taken.lock().unwrap_or_else(PoisonError::into_inner);
        let held = taken.get(&key);
        if !held.is_some_and(|&(by, until)| by == client && now < until) {
            admit(&mut taken, client, now)?;
        }
        self.table.renew(stream, holder, origin, ttl, now)?;
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        taken.insert(key, (client, Timestamp(now.0.saturating_add(ttl_ms))));
        Ok(())
    }

    /// Ends `holder`'s lease on `stream` at `now`.
    pub(super) fn end(&self, stream: &str, holder: &str, now: Timestamp) {
        self.table.end(stream, holder, now);
        let key = (stream.to_owned(), holder.to_owned());
        let mut taken = self.taken.lock().unwrap_or_else(PoisonError::into_inner);
        taken.remove(&key);
    }

    /// Every lease, read at `now`.
    pub(super) fn read(&self, now: Timestamp) -> Leases {
        self.table.read(now)
    }

    /// The leases on `stream`, read at `now`.
    pub(super) fn read_on(&self, stream: &str, now: Timestamp) -> Leases {
        self.table.read_on(stream, now)
    }
}

/// Whether `client` may take a new lease at `now` (see [`Presence::renew`]);
/// forgets the leases that ended or expired.
fn admit(
    taken: &mut HashMap<Key, (Client, Timestamp)>,
    client: Client,
    now: Timestamp,
) -> Result<()> {
    taken.retain(|_, &mut (_, until)| now < until);
    let mine = taken.values().filter(|&&(by, _)| by == client).count();
    admit_new_lease(mine, || Ok(taken.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use askuser_store::presence::{FEW, PER_PROCESS};

    fn take(presence: &Presence, client: Client, n: usize) -> Result<()> {
        let origin = AgentOrigin {
            host: Some("flood".into()),
            ..AgentOrigin::default()
        };
        let stream = format!("s-{client}-{n}");
        let ttl = Duration::from_secs(6);
        presence.renew(client, (&stream, "h:1"), &origin, ttl, Timestamp(1))
    }

    /// Fifteen processes at their cap leave the reserved places: a sixteenth
    /// holding a few is refused there, and an agent holding none gets one.
    #[test]
    fn the_last_places_are_kept_for_processes_holding_few() {
        let presence = Presence::default();
        for client in 1..=15 {
            for n in 0..PER_PROCESS {
                take(&presence, client, n).unwrap();
            }
            assert_eq!(
                take(&presence, client, PER_PROCESS)
                    .unwrap_err()
                    .to_string(),
                "a presence lease cannot be kept: this process already holds 256 presence leases on this log, the most one process may: end some (each waiting agent holds one)"
            );
        }
        for n in 0..FEW {
            take(&presence, 16, n).unwrap();
        }
        assert_eq!(
            take(&presence, 16, FEW).unwrap_err().to_string(),
            "a presence lease cannot be kept: 3844 of this log's 4096 presence leases are held; the last 256 are kept for processes holding fewer than 4, so that an agent started now still gets its presence"
        );
        take(&presence, 17, 0).unwrap();
        // A lease renewed is never refused, and one ended frees its place.
        take(&presence, 16, 0).unwrap();
        presence.end("s-16-0", "h:1", Timestamp(2));
        take(&presence, 16, FEW).unwrap();
    }
}
