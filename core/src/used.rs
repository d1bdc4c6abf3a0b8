//! The digests of every inquiry id a stream ever requested: a set that grows by
//! one digest a request and is asked only whether a new request's id is taken.
//!
//! A replay inserts a digest per request, in no order (the digests are hashes),
//! so a search tree of them takes a cache miss or two at every insert once it
//! outgrows the cache: a replay of 250,000 inquiries spent a tenth of its
//! applying there. Here the newest digests wait, unsorted, in a short list; when
//! it is full it is sorted into a run, and runs of similar length are merged, as
//! a log-structured merge tree does. Each digest is then moved a logarithmic
//! number of times, in sequential passes the processor reads ahead of, and a
//! lookup searches at most one run per doubling of the set. No set of ids makes
//! either slow: nothing here depends on how the digests are spread.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How many digests wait unsorted before they are sorted into a run.
const FRESH: usize = 32;

/// A set of 64-bit digests (see the module docs).
#[derive(Clone, Default)]
pub(crate) struct Used {
    /// Sorted runs, longer ones first: each is more than twice as long as the
    /// next, so there are at most ~log2(n) of them. (A digest inserted twice
    /// may be in a run twice.)
    runs: Vec<Vec<u64>>,
    /// The newest digests, unsorted, at most [`FRESH`].
    fresh: Vec<u64>,
}

impl Used {
    /// Adds `digest` (one already there is still one digest of the set; a run
    /// may hold it twice).
    pub(crate) fn insert(&mut self, digest: u64) {
        if self.fresh.capacity() == 0 {
            self.fresh.reserve_exact(FRESH);
        }
        self.fresh.push(digest);
        if self.fresh.len() == FRESH {
            self.settle();
        }
    }

    /// Whether `digest` was added.
    pub(crate) fn contains(&self, digest: u64) -> bool {
        self.fresh.contains(&digest)
            || self
                .runs
                .iter()
                .any(|run| run.binary_search(&digest).is_ok())
    }

    /// Sorts the fresh digests into a run, merging it with the runs before it
    /// that are not more than twice as long.
    fn settle(&mut self) {
        let mut run = std::mem::replace(&mut self.fresh, Vec::with_capacity(FRESH));
        run.sort_unstable();
        run.dedup();
        while let Some(last) = self.runs.last() {
            if last.len() > 2 * run.len() {
                break;
            }
            let mut last = self.runs.pop().unwrap_or_default();
            merge_into(&mut last, &run);
            run = last;
        }
        self.runs.push(run);
    }

    /// Every digest, in ascending order, each once.
    fn sorted(&self) -> Vec<u64> {
        let mut all: Vec<u64> = self.runs.iter().flatten().copied().collect();
        all.extend_from_slice(&self.fresh);
        all.sort_unstable();
        all.dedup();
        all
    }
}

/// Merges the sorted run `b` into the sorted run `a`, in place: `a` grows at
/// its end (its allocation grown as a vector grows, not a new one taken and
/// its pages faulted in afresh at each merge) and is filled from the back. A
/// digest in both is kept twice: a set read whole ([`Used::sorted`]) says it
/// once, and a digest is inserted again only by a log that requested an id
/// twice.
fn merge_into(a: &mut Vec<u64>, b: &[u64]) {
    let (mut i, mut j) = (a.len(), b.len());
    a.resize(i + j, 0);
    let mut write = i + j;
    while j > 0 {
        write -= 1;
        if i > 0 && a[i - 1] > b[j - 1] {
            a[write] = a[i - 1];
            i -= 1;
        } else {
            a[write] = b[j - 1];
            j -= 1;
        }
    }
}

impl PartialEq for Used {
    /// As sets: the same digests, however they are laid out.
    fn eq(&self, other: &Self) -> bool {
        self.sorted() == other.sorted()
    }
}

impl std::fmt::Debug for Used {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.sorted()).finish()
    }
}

impl Serialize for Used {
    /// As a `BTreeSet<u64>` is: the digests in ascending order (the snapshot
    /// format is unchanged).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.sorted())
    }
}

impl<'de> Deserialize<'de> for Used {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut run = Vec::<u64>::deserialize(deserializer)?;
        run.sort_unstable();
        run.dedup();
        Ok(Self {
            runs: if run.is_empty() {
                Vec::new()
            } else {
                vec![run]
            },
            fresh: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::Used;

    proptest! {
        #[test]
        fn it_holds_what_a_btree_set_holds(
            digests in proptest::collection::vec(prop_oneof![0..64_u64, any::<u64>()], 0..600),
            probes in proptest::collection::vec(0..64_u64, 0..40),
        ) {
            let mut used = Used::default();
            let mut set = BTreeSet::new();
            for digest in &digests {
                used.insert(*digest);
                set.insert(*digest);
                prop_assert!(used.contains(*digest));
            }
            for probe in probes.iter().chain(&digests) {
                prop_assert_eq!(used.contains(*probe), set.contains(probe));
            }
            prop_assert_eq!(used.sorted(), set.iter().copied().collect::<Vec<_>>());
            prop_assert!(used.runs.windows(2).all(|w| w[0].len() > 2 * w[1].len()));
            let json = serde_json::to_string(&used).unwrap();
            prop_assert_eq!(&json, &serde_json::to_string(&set).unwrap());
            let back: Used = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(back, used);
        }
    }
}
