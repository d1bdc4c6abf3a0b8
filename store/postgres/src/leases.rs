//! The presence leases this process holds on the database, so that one process
//! is bounded as the sled owner bounds it: at most
//! [`PER_PROCESS`](askuser_store::presence::PER_PROCESS) live leases, and past
//! [`FEW`](askuser_store::presence::FEW) none of the places the log keeps for
//! agents started later ([`admit_new_lease`], the rule both backends keep). The
//! database's roles decide who may write at all; this keeps a flood of calls
//! into one askuser process from pushing real agents out of the presence table.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use askuser_store::presence::admit_new_lease;
use askuser_store::{Result, Timestamp};

/// A lease's key: its stream and holder.
type Key = (String, String);

/// The live leases this open log took, each with when it lapses (on the log's
/// clock).
#[derive(Debug, Default)]
pub(crate) struct Held {
    until: Mutex<HashMap<Key, Timestamp>>,
}

impl Held {
    /// Takes or renews `holder`'s lease on `stream` until `until`, `now` being
    /// the log's time: a lease not held yet only where [`admit_new_lease`]
    /// admits it, `live` counting the log's live leases when asked; `renew`
    /// writes it to the database.
    ///
    /// # Errors
    /// [`StoreError::BadLease`](askuser_store::StoreError::BadLease) past a
    /// bound; `live`'s and `renew`'s errors.
    pub(crate) fn renew(
        &self,
        (stream, holder): (&str, &str),
        (now, until): (Timestamp, Timestamp),
        live: impl FnOnce() -> Result<usize>,
        renew: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let key = (stream.to_owned(), holder.to_owned());
        let mut held = self.until.lock().unwrap_or_else(PoisonError::into_inner);
        held.retain(|_, lapses| now < *lapses);
        if !held.contains_key(&key) {
            admit_new_lease(held.len(), live)?;
        }
        renew()?;
        held.insert(key, until);
        Ok(())
    }

    /// Forgets `holder`'s lease on `stream`, ended.
    pub(crate) fn end(&self, stream: &str, holder: &str) {
        let mut held = self.until.lock().unwrap_or_else(PoisonError::into_inner);
        held.remove(&(stream.to_owned(), holder.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use askuser_store::presence::{FEW, MAX_LEASES, PER_PROCESS, RESERVED};

    fn take(held: &Held, n: usize, live: usize) -> Result<()> {
        let stream = format!("s-{n}");
        let times = (Timestamp(1), Timestamp(6001));
        held.renew((&stream, "h:1"), times, || Ok(live), || Ok(()))
    }

    /// One process holds at most 256; renewing one it holds is never refused;
    /// an ended one makes room.
    #[test]
    fn one_process_holds_at_most_its_share() {
        let held = Held::default();
        for n in 0..PER_PROCESS {
            take(&held, n, 0).unwrap();
        }
        assert_eq!(
            take(&held, PER_PROCESS, 0).unwrap_err().to_string(),
            "a presence lease cannot be kept: this process already holds 256 presence leases on this log, the most one process may: end some (each waiting agent holds one)"
        );
        take(&held, 0, 0).unwrap();
        held.end("s-0", "h:1");
        take(&held, PER_PROCESS, 0).unwrap();
    }

    /// Once the log's table is all but its reserved places full, a process
    /// holding a few takes no more, and one holding fewer still does.
    #[test]
    fn the_reserved_places_are_for_processes_holding_few() {
        let held = Held::default();
        let full = MAX_LEASES - RESERVED;
        for n in 0..FEW {
            take(&held, n, full).unwrap();
        }
        assert_eq!(
            take(&held, FEW, full).unwrap_err().to_string(),
            "a presence lease cannot be kept: 3840 of this log's 4096 presence leases are held; the last 256 are kept for processes holding fewer than 4, so that an agent started now still gets its presence"
        );
        take(&held, FEW, full - 1).unwrap();
    }

    /// A lapsed lease no longer counts.
    #[test]
    fn lapsed_leases_make_room() {
        let held = Held::default();
        for n in 0..PER_PROCESS {
            take(&held, n, 0).unwrap();
        }
        let later = (Timestamp(6001), Timestamp(12_001));
        held.renew(("s-new", "h:1"), later, || Ok(0), || Ok(()))
            .unwrap();
    }
}
