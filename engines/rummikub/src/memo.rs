//! The solver's memo: an open-addressing hash table from packed `u128` keys
//! to `(value, exact)`, cleared in O(1) by bumping a generation stamp so its
//! memory is reused from one query to the next.

#[derive(Clone, Copy)]
struct Slot {
    key: u128,
    value: i32,
    /// `generation << 1 | exact`; a slot of an older generation is empty.
    info: u32,
}

/// log2 of the slot count a memo starts with (128 KiB).
const MIN_BITS: u32 = 12;

const EMPTY: Slot = Slot {
    key: 0,
    value: 0,
    info: 0,
};

pub(crate) struct Memo {
    slots: Vec<Slot>,
    /// log2 of the slot count.
    bits: u32,
    /// log2 of the most slots it may grow to; a full memo at that size is
    /// cleared instead (it is a cache: the search only loses speed).
    max_bits: u32,
    len: usize,
    generation: u32,
}

impl Memo {
    pub(crate) fn new() -> Memo {
        let bits = MIN_BITS;
        Memo {
            slots: vec![EMPTY; 1 << bits],
            bits,
            max_bits: usize::BITS - 1,
            len: 0,
            generation: 1,
        }
    }

    /// Forgets every entry (keeps the memory).
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.generation += 1;
        if self.generation >= 1 << 30 {
            self.slots.fill(EMPTY);
            self.generation = 1;
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Heap bytes held by the slots.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
    }

    /// Gives the slots back and starts small again when they hold more than
    /// `max_bytes`; the entries are forgotten either way.
    pub(crate) fn shrink_to(&mut self, max_bytes: usize) {
        if self.memory_bytes() > max_bytes {
            *self = Memo {
                max_bits: self.max_bits,
                ..Memo::new()
            };
        } else {
            self.clear();
        }
    }

    /// Grows to at most `max_bytes` of slots (never below the starting size).
    pub(crate) fn set_limit(&mut self, max_bytes: usize) {
        let slots = (max_bytes / std::mem::size_of::<Slot>()).max(1);
        self.max_bits = slots.ilog2().max(MIN_BITS);
        if self.bits > self.max_bits {
            self.shrink_to(0);
        }
    }

    #[inline]
    fn home(&self, key: u128) -> usize {
        let x = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }

    #[inline]
    pub(crate) fn get(&self, key: u128) -> Option<(i32, bool)> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let slot = self.slots.get(i)?;
            if slot.info >> 1 != self.generation {
                return None;
            }
            if slot.key == key {
                return Some((slot.value, slot.info & 1 == 1));
            }
            i = (i + 1) & mask;
        }
    }

    #[inline]
    pub(crate) fn insert(&mut self, key: u128, value: i32, exact: bool) {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            if self.bits < self.max_bits {
                self.grow();
            } else {
                self.clear();
            }
        }
        let info = (self.generation << 1) | u32::from(exact);
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        while let Some(slot) = self.slots.get_mut(i) {
            if slot.info >> 1 != self.generation {
                *slot = Slot { key, value, info };
                self.len += 1;
                return;
            }
            if slot.key == key {
                slot.value = value;
                slot.info = info;
                return;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; 1 << (self.bits + 1)]);
        self.bits += 1;
        self.len = 0;
        for slot in old {
            if slot.info >> 1 == self.generation {
                self.insert(slot.key, slot.value, slot.info & 1 == 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_get_clear_grow() {
        let mut memo = Memo::new();
        for round in 0..3u128 {
            for k in 0..20_000u128 {
                memo.insert(k * 0x1_0000_0001 + round, k as i32, k % 2 == 0);
            }
            assert_eq!(memo.len(), 20_000);
            for k in 0..20_000u128 {
                assert_eq!(
                    memo.get(k * 0x1_0000_0001 + round),
                    Some((k as i32, k % 2 == 0))
                );
            }
            assert_eq!(memo.get(u128::MAX), None);
            memo.clear();
            assert_eq!(memo.get(round), None);
        }
    }

    #[test]
    fn a_limited_memo_stays_within_its_limit_and_shrinks_back() {
        let mut memo = Memo::new();
        memo.set_limit(1 << 20);
        for k in 0..200_000u128 {
            memo.insert(k, k as i32, true);
            assert!(memo.memory_bytes() <= 1 << 20);
        }
        // The latest entries survive a clear at the limit.
        assert_eq!(memo.get(199_999), Some((199_999, true)));
        assert_eq!(memo.memory_bytes(), 1 << 20);
        memo.shrink_to(1 << 20);
        assert_eq!(memo.memory_bytes(), 1 << 20, "at the limit: kept");
        memo.shrink_to(1 << 19);
        assert_eq!(memo.memory_bytes(), 4096 * std::mem::size_of::<Slot>());
        assert_eq!(memo.get(199_999), None);
        // Still limited after shrinking.
        for k in 0..200_000u128 {
            memo.insert(k, 0, false);
        }
        assert_eq!(memo.memory_bytes(), 1 << 20);
    }
}
