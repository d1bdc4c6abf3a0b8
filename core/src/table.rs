//! The inquiries a [`State`](crate::State) holds, by id: a map iterated in id order
//! (as a `BTreeMap` is, and serialized as one), built for the way events reach it.
//!
//! The entries live in a slab. Replaying a walk touches one inquiry several times
//! in a row (its request, each answer, its end), so the slot used last is tried
//! first: one comparison of ids, by pointer when the reader shares them. Otherwise
//! an index keyed by the id's 64-bit digest (the one `State` keeps of every id
//! ever requested) finds the slot: a search compares numbers, and only the id it
//! lands on is compared as a string (comparing ids as strings at every step of a
//! search was most of what a replay spent on finding inquiries).
//! The index is a short list while the table is small and a `BTreeMap` past that
//! (see [`index`]), not a hash table, so that no set of ids makes it slow.
//! Listing the entries in id order sorts them; only listings and snapshots do.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::event::InquiryId;
use crate::reducer::digest;

mod index;

use index::Index;

/// A map from inquiry ids to `V`, iterated in id order.
#[derive(Clone)]
pub(crate) struct Table<V> {
    /// The slots of the ids, by the ids' 64-bit digest.
    index: Index,
    /// The entries, with their ids; `None` for a free slot.
    slots: Vec<Option<(InquiryId, V)>>,
    /// The free slots, reused last-freed first.
    free: Vec<usize>,
    /// The slot looked up or filled last (it may since have been freed).
    last: usize,
    /// A digest that collides, for tests (else [`digest`]). Nothing else is kept
    /// beside the slots: a `State` is sent whole in a store's messages, whose
    /// variants clippy wants within 200 bytes of each other.
    #[cfg(test)]
    digest: Option<fn(&str) -> u64>,
}

/// The slots of the ids that share one digest.
#[derive(Clone)]
enum Bucket {
    /// One id (always, for the ids of a log [`State::decide`](crate::State::decide)
    /// wrote: it refuses a new id whose digest was ever used).
    One(usize),
    /// Several, in id order (a log written by hand can hold such ids): found by
    /// binary search, so that no input makes a search linear.
    Many(Vec<usize>),
}

impl<V> Default for Table<V> {
    fn default() -> Self {
        Self {
            index: Index::default(),
            slots: Vec::new(),
            free: Vec::new(),
            last: 0,
            #[cfg(test)]
            digest: None,
        }
    }
}

impl<V> Table<V> {
    /// The id held in `slot` (a slot the index names always holds one).
    fn id_at(&self, slot: usize) -> Option<&InquiryId> {
        Some(&self.slots.get(slot)?.as_ref()?.0)
    }

    /// Where `id` is, or would go, among a bucket's slots.
    fn search(&self, slots: &[usize], id: &InquiryId) -> Result<usize, usize> {
        slots.binary_search_by(|&slot| match self.id_at(slot) {
            Some(held) => held.cmp(id),
            None => std::cmp::Ordering::Less,
        })
    }

    /// The slot holding `id`, per the index.
    fn find(&self, id: &InquiryId) -> Option<usize> {
        match self.index.get(self.digest_of(id))? {
            Bucket::One(slot) => self
                .id_at(*slot)
                .filter(|held| held.same(id))
                .map(|_| *slot),
            Bucket::Many(slots) => self.search(slots, id).ok().map(|at| slots[at]),
        }
    }

    /// The slot holding `id`: the last one used if it does, else the index's.
    fn slot_of(&self, id: &InquiryId) -> Option<usize> {
        match self.slots.get(self.last) {
            Some(Some((held, _))) if held.same(id) => Some(self.last),
            _ => self.find(id),
        }
    }

    /// Whether `id` has an entry.
    pub(crate) fn contains_key(&self, id: &InquiryId) -> bool {
        self.get(id).is_some()
    }

    /// The entry of `id`.
    pub(crate) fn get(&self, id: &InquiryId) -> Option<&V> {
        self.get_key_value(id).map(|(_, value)| value)
    }

    /// The entry of `id`, with the id as the table holds it.
    pub(crate) fn get_key_value(&self, id: &InquiryId) -> Option<(&InquiryId, &V)> {
        let (held, value) = self.slots.get(self.slot_of(id)?)?.as_ref()?;
        Some((held, value))
    }

    /// The entry of `id`, to change.
    pub(crate) fn get_mut(&mut self, id: &InquiryId) -> Option<&mut V> {
        let slot = self.slot_of(id)?;
        self.last = slot;
        self.slots.get_mut(slot)?.as_mut().map(|(_, value)| value)
    }

    /// Sets the entry of `id`, as `BTreeMap::insert` does: an id already present
    /// keeps its key and gets the new value.
    pub(crate) fn insert(&mut self, id: InquiryId, value: V) {
        if let Some(slot) = self.find(&id) {
            if let Some((_, held)) = &mut self.slots[slot] {
                *held = value;
            }
            self.last = slot;
            return;
        }
        let slot = self.vacant_slot(&id);
        self.slots[slot] = Some((id, value));
    }

    /// Sets the entry of an id that has none; `false` (and nothing changed) when the
    /// id has one. `make` builds the value only then.
    pub(crate) fn insert_new(&mut self, id: &InquiryId, make: impl FnOnce() -> V) -> bool {
        let code = self.digest_of(id);
        let vacant = self.free.last().copied().unwrap_or(self.slots.len());
        // The common case, in one search of the index.
        let slot = if self.index.insert_vacant(code, Bucket::One(vacant)) {
            if self.free.pop().is_none() {
                self.slots.push(None);
            }
            self.last = vacant;
            vacant
        } else {
            if self.find(id).is_some() {
                return false;
            }
            self.vacant_slot(id)
        };
        self.slots[slot] = Some((id.clone(), make()));
        true
    }

    /// Takes a free slot for `id` (which has none) and enters it in the index; the
    /// caller fills the slot before anything reads it.
    fn vacant_slot(&mut self, id: &InquiryId) -> usize {
        let slot = self.free.pop().unwrap_or(self.slots.len());
        if slot == self.slots.len() {
            self.slots.push(None);
        }
        let code = self.digest_of(id);
        let others = match self.index.remove(code) {
            None => Vec::new(),
            Some(Bucket::One(other)) => vec![other],
            Some(Bucket::Many(others)) => others,
        };
        let bucket = if others.is_empty() {
            Bucket::One(slot)
        } else {
            let at = self.search(&others, id).unwrap_or_else(|at| at);
            let mut slots = others;
            slots.insert(at, slot);
            Bucket::Many(slots)
        };
        self.index.insert_vacant(code, bucket);
        self.last = slot;
        slot
    }

    /// Removes the entry of `id` (dropped where it lies, not moved out); whether it
    /// had one.
    pub(crate) fn remove(&mut self, id: &InquiryId) -> bool {
        let code = self.digest_of(id);
        let slots = &self.slots;
        let held = |slot: usize| slots.get(slot).and_then(Option::as_ref);
        let mut removed = None;
        self.index.change(code, |bucket| match bucket {
            Bucket::One(slot) => {
                let found = held(*slot).is_some_and(|(held, _)| held.same(id));
                if found {
                    removed = Some(*slot);
                }
                found
            }
            Bucket::Many(slots) => {
                let found = slots.binary_search_by(|&slot| match held(slot) {
                    Some((held, _)) => held.cmp(id),
                    None => std::cmp::Ordering::Less,
                });
                if let Ok(at) = found {
                    removed = Some(slots.remove(at));
                    if let [only] = slots.as_slice() {
                        *bucket = Bucket::One(*only);
                    }
                }
                false
            }
        });
        let Some(slot) = removed else {
            return false;
        };
        self.free.push(slot);
        if let Some(entry) = self.slots.get_mut(slot) {
            *entry = None;
        }
        true
    }

    /// The entries, in id order (sorted on each call: only listings, snapshots and
    /// the end of a turn ask for them).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&InquiryId, &V)> {
        self.sorted(|_| true)
    }

    /// The entries whose value `keep` accepts, in id order (chosen before they are
    /// sorted).
    pub(crate) fn sorted(
        &self,
        keep: impl Fn(&V) -> bool,
    ) -> impl Iterator<Item = (&InquiryId, &V)> {
        let mut entries: Vec<(&InquiryId, &V)> = self
            .slots
            .iter()
            .filter_map(|entry| entry.as_ref().map(|(id, value)| (id, value)))
            .filter(|(_, value)| keep(value))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        entries.into_iter()
    }

    /// How many entries the table holds (every slot is held or free).
    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// The digest `id` is indexed by.
    #[cfg_attr(not(test), allow(clippy::unused_self))] // `self` chooses it in tests
    fn digest_of(&self, id: &InquiryId) -> u64 {
        #[cfg(test)]
        if let Some(digest) = self.digest {
            return digest(id.as_str());
        }
        digest(id.as_str())
    }
}

impl<V: PartialEq> PartialEq for Table<V> {
    /// Equal when they hold the same entries, wherever each is kept.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<V: fmt::Debug> fmt::Debug for Table<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V: Serialize> Serialize for Table<V> {
    /// As the `BTreeMap<InquiryId, V>` it stands for.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Table<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let entries = BTreeMap::<InquiryId, V>::deserialize(deserializer)?;
        let mut table = Self::default();
        for (id, value) in entries {
            table.insert(id, value);
        }
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> InquiryId {
        InquiryId::new(text)
    }

    #[test]
    fn it_behaves_as_an_ordered_map_whatever_slots_are_reused() {
        behaves_as_an_ordered_map(Table::default());
    }

    #[test]
    fn ids_that_share_a_digest_are_told_apart() {
        // A digest that puts every id of one length in one bucket.
        behaves_as_an_ordered_map(Table {
            digest: Some(|id| u64::try_from(id.len()).unwrap_or(0)),
            ..Table::default()
        });
    }

    fn behaves_as_an_ordered_map(mut table: Table<u32>) {
        let mut model = BTreeMap::new();
        // A fixed mix of inserts, replacements and removals that reuses slots.
        for step in 0..200_u32 {
            let key = id(&format!("k{}", (step * 7) % 23));
            match step % 5 {
                0 | 1 | 3 => {
                    table.insert(key.clone(), step);
                    model.insert(key, step);
                }
                2 => {
                    let inserted = table.insert_new(&key, || step);
                    assert_eq!(inserted, !model.contains_key(&key));
                    model.entry(key).or_insert(step);
                }
                _ => assert_eq!(table.remove(&key), model.remove(&key).is_some()),
            }
            assert_eq!(table.len(), model.len());
            assert!(table.iter().eq(model.iter()));
            for probe in 0..23 {
                let probe = id(&format!("k{probe}"));
                assert_eq!(table.get(&probe), model.get(&probe));
                assert_eq!(table.get_mut(&probe).copied(), model.get(&probe).copied());
            }
        }
        let json = serde_json::to_string(&table).unwrap();
        assert_eq!(json, serde_json::to_string(&model).unwrap());
        let back: Table<u32> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, table);
    }
}
