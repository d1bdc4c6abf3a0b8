//! The inquiries a [`State`](crate::State) holds, by id: a map ordered by id (as a
//! `BTreeMap` is, and serialized as one), built for the way events reach it.
//!
//! The entries live in a slab; an ordered index maps each id to its slot. Replaying
//! a walk touches one inquiry several times in a row (its request, each answer, its
//! end), so the slot used last is tried first: one comparison of ids instead of a
//! search of the index. The index orders ids by their first 16 bytes read as a
//! number before comparing them as strings, which is the same order: most steps of
//! a search compare two numbers rather than calling `memcmp` (comparing ids as
//! strings was most of what a replay spent on finding inquiries).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::event::InquiryId;

/// A map from inquiry ids to `V`, iterated in id order.
#[derive(Clone)]
pub(crate) struct Table<V> {
    /// Each id's slot in `slots`.
    index: BTreeMap<Key, usize>,
    /// The entries, with their ids; `None` for a free slot.
    slots: Vec<Option<(InquiryId, V)>>,
    /// The free slots, reused last-freed first.
    free: Vec<usize>,
    /// The slot looked up or filled last (it may since have been freed).
    last: usize,
}

impl<V> Default for Table<V> {
    fn default() -> Self {
        Self {
            index: BTreeMap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            last: 0,
        }
    }
}

impl<V> Table<V> {
    /// The slot holding `id`: the last one used if it does, else the index's.
    fn slot_of(&self, id: &InquiryId) -> Option<usize> {
        match self.slots.get(self.last) {
            Some(Some((held, _))) if held.same(id) => Some(self.last),
            _ => self.index.get(&Key::new(id)).copied(),
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
        let slot = match self.index.entry(Key::new(&id)) {
            Entry::Occupied(entry) => *entry.get(),
            Entry::Vacant(entry) => {
                let slot = self.free.pop().unwrap_or(self.slots.len());
                if slot == self.slots.len() {
                    self.slots.push(None);
                }
                self.slots[slot] = Some((id, value));
                entry.insert(slot);
                self.last = slot;
                return;
            }
        };
        if let Some((_, held)) = &mut self.slots[slot] {
            *held = value;
        }
        self.last = slot;
    }

    /// Sets the entry of an id that has none, in one search of the index; `false`
    /// (and nothing changed) when the id has one. `make` builds the value only then.
    pub(crate) fn insert_new(&mut self, id: &InquiryId, make: impl FnOnce() -> V) -> bool {
        let Entry::Vacant(entry) = self.index.entry(Key::new(id)) else {
            return false;
        };
        let slot = self.free.pop().unwrap_or(self.slots.len());
        if slot == self.slots.len() {
            self.slots.push(None);
        }
        entry.insert(slot);
        self.slots[slot] = Some((id.clone(), make()));
        self.last = slot;
        true
    }

    /// Removes the entry of `id` (dropped where it lies, not moved out); whether it
    /// had one.
    pub(crate) fn remove(&mut self, id: &InquiryId) -> bool {
        let Some(slot) = self.index.remove(&Key::new(id)) else {
            return false;
        };
        self.free.push(slot);
        if let Some(entry) = self.slots.get_mut(slot) {
            *entry = None;
        }
        true
    }

    /// The entries, in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&InquiryId, &V)> {
        self.index.iter().filter_map(|(_, &slot)| {
            let (id, value) = self.slots.get(slot)?.as_ref()?;
            Some((id, value))
        })
    }

    /// How many entries the table holds.
    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }
}

/// An id in the index, ordered as the id: by its first 16 bytes (zero-padded) as a
/// big-endian number, then by the rest. Where two ids' first 16 bytes differ, the
/// first differing byte decides both comparisons (a padding zero stands for a
/// shorter id, which a string comparison also puts first). Where they are the same
/// and one id is at most 16 bytes long, it is a prefix of the other (followed by
/// zero bytes), so the shorter comes first; only two longer ids compare their
/// bytes past the 16th.
#[derive(Clone)]
struct Key {
    head: u128,
    id: InquiryId,
}

/// How many leading bytes of an id its key holds as a number.
const HEAD_BYTES: usize = 16;

impl Key {
    fn new(id: &InquiryId) -> Self {
        let bytes = id.as_str().as_bytes();
        let mut head = [0; HEAD_BYTES];
        let length = bytes.len().min(head.len());
        head[..length].copy_from_slice(&bytes[..length]);
        Self {
            head: u128::from_be_bytes(head),
            id: id.clone(),
        }
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.head.cmp(&other.head).then_with(|| {
            let (mine, theirs) = (self.id.as_str().as_bytes(), other.id.as_str().as_bytes());
            if mine.len().min(theirs.len()) <= HEAD_BYTES {
                mine.len().cmp(&theirs.len())
            } else {
                mine[HEAD_BYTES..].cmp(&theirs[HEAD_BYTES..])
            }
        })
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Key {}

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
        let mut table = Table::default();
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

    #[test]
    fn keys_are_ordered_as_their_ids() {
        let ids = [
            "",
            "\0",
            "\0\0",
            "a",
            "a\0",
            "a\0b",
            "a\u{1}",
            "ab",
            "i1",
            "i10",
            "i2",
            "i9",
            "toolu_01ABCDEFGH",
            "toolu_01ABCDEFGH\0",
            "toolu_01ABCDEFGHa",
            "toolu_01ABCDEFGHb",
            "toolu_01ABCDEFGI",
            "toolu_01ABCDEFGH\0\0",
            "0123456789abcdef",
            "0123456789abcde",
            "0123456789abcdef0",
            "0123456789abcdef\0",
            "0123456789abcdef01",
            "0123456789abcdef1",
            "\u{7f}",
            "é",
            "\u{10ffff}",
        ];
        for a in ids {
            for b in ids {
                let (a, b) = (id(a), id(b));
                assert_eq!(Key::new(&a).cmp(&Key::new(&b)), a.cmp(&b), "{a:?} vs {b:?}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn keys_of_any_ids_are_ordered_as_the_ids(
            shared in "[ab\\x00\\x01é]{0,20}",
            a in "[ab\\x00\\x01é]{0,6}",
            b in "[ab\\x00\\x01é]{0,6}",
        ) {
            // A common start, so that many pairs tie on their first 16 bytes.
            let (a, b) = (id(&format!("{shared}{a}")), id(&format!("{shared}{b}")));
            proptest::prop_assert_eq!(Key::new(&a).cmp(&Key::new(&b)), a.cmp(&b));
        }
    }
}
