//! The table's index: inquiry-id digests to the slots that hold those ids.
//!
//! A state holds a few dozen inquiries (the open ones and the last
//! [`FINISHED_REMEMBERED`](crate::FINISHED_REMEMBERED) finished), and each
//! inquiry enters the index once and leaves it once: a search tree rebalanced
//! at each of those was a tenth of what a replay spent applying, and a sorted
//! vector moved half its entries at each. While the index is small it is a
//! list in no order: a lookup scans at most [`SMALL`] entries, an entry is
//! added at the end, and a removed one is replaced by the last. Past [`SMALL`]
//! entries it becomes a `BTreeMap`, so that no number of open inquiries makes
//! an insert cost more than a logarithm, and back below half of that. Nothing
//! reads the index in order.

use std::collections::BTreeMap;

use super::Bucket;

/// The most entries kept in the unordered list.
const SMALL: usize = 64;

/// Digests to buckets (see the module docs).
#[derive(Clone)]
pub(super) enum Index {
    /// At most [`SMALL`] entries, in no order.
    Small(Vec<(u64, Bucket)>),
    /// More than [`SMALL`] / 2 entries.
    Large(BTreeMap<u64, Bucket>),
}

impl Default for Index {
    fn default() -> Self {
        Self::Small(Vec::new())
    }
}

impl Index {
    /// The bucket of `code`.
    pub(super) fn get(&self, code: u64) -> Option<&Bucket> {
        match self {
            Self::Small(entries) => Some(&entries[position(entries, code)?].1),
            Self::Large(map) => map.get(&code),
        }
    }

    /// Enters `bucket` for `code` if `code` has none; whether it did.
    pub(super) fn insert_vacant(&mut self, code: u64, bucket: Bucket) -> bool {
        match self {
            Self::Small(entries) => {
                if position(entries, code).is_some() {
                    return false;
                }
                entries.push((code, bucket));
                if entries.len() > SMALL {
                    *self = Self::Large(std::mem::take(entries).into_iter().collect());
                }
                true
            }
            Self::Large(map) => match map.entry(code) {
                std::collections::btree_map::Entry::Vacant(entry) => {
                    entry.insert(bucket);
                    true
                }
                std::collections::btree_map::Entry::Occupied(_) => false,
            },
        }
    }

    /// Removes the bucket of `code`, returning it.
    pub(super) fn remove(&mut self, code: u64) -> Option<Bucket> {
        let removed = match self {
            Self::Small(entries) => {
                let at = position(entries, code)?;
                Some(entries.swap_remove(at).1)
            }
            Self::Large(map) => map.remove(&code),
        };
        self.shrink_if_small();
        removed
    }

    /// Hands the bucket of `code`, if it has one, to `change`, which changes it
    /// in place or says (`true`) to remove it: one search, where a look and a
    /// removal took two.
    pub(super) fn change(&mut self, code: u64, change: impl FnOnce(&mut Bucket) -> bool) {
        match self {
            Self::Small(entries) => {
                if let Some(at) = position(entries, code)
                    && change(&mut entries[at].1)
                {
                    entries.swap_remove(at);
                }
            }
            Self::Large(map) => {
                if let std::collections::btree_map::Entry::Occupied(mut entry) = map.entry(code)
                    && change(entry.get_mut())
                {
                    entry.remove();
                    self.shrink_if_small();
                }
            }
        }
    }

    /// Back to the unordered list once a map holds fewer than [`SMALL`] / 2.
    fn shrink_if_small(&mut self) {
        if let Self::Large(map) = self
            && map.len() < SMALL / 2
        {
            *self = Self::Small(std::mem::take(map).into_iter().collect());
        }
    }
}

/// Where `code` is among `entries`.
fn position(entries: &[(u64, Bucket)], code: u64) -> Option<usize> {
    entries.iter().position(|(held, _)| *held == code)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::{Bucket, Index, SMALL};

    fn slot(bucket: Option<&Bucket>) -> Option<usize> {
        match bucket? {
            Bucket::One(slot) => Some(*slot),
            Bucket::Many(_) => None,
        }
    }

    proptest! {
        #[test]
        fn it_agrees_with_a_btree_map_small_or_large(
            steps in proptest::collection::vec((any::<bool>(), 0..200_u64), 0..600)
        ) {
            let mut index = Index::default();
            let mut model = BTreeMap::new();
            for (step, (insert, code)) in steps.into_iter().enumerate() {
                if insert {
                    let vacant = !model.contains_key(&code);
                    prop_assert_eq!(index.insert_vacant(code, Bucket::One(step)), vacant);
                    model.entry(code).or_insert(step);
                } else if step % 2 == 0 {
                    prop_assert_eq!(slot(index.remove(code).as_ref()), model.remove(&code));
                } else {
                    // Through `change`: the bucket it is handed, removed.
                    let mut handed = None;
                    index.change(code, |bucket| {
                        handed = slot(Some(bucket));
                        true
                    });
                    prop_assert_eq!(handed, model.remove(&code));
                }
                match &index {
                    Index::Small(entries) => prop_assert!(entries.len() <= SMALL),
                    Index::Large(map) => prop_assert!(map.len() >= SMALL / 2),
                }
                for code in 0..200 {
                    prop_assert_eq!(slot(index.get(code)), model.get(&code).copied());
                }
            }
        }
    }
}
