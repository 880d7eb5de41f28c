//! Transposition table over trick-boundary positions.
//!
//! The key is the 4 x 16-bit per-suit code (see [`key`]); the declarer's seat relative
//! to the leader is stored beside it and checked on probe. An entry holds a lower and an
//! upper bound on the declarer's tricks in the remaining tricks, plus the best lead seen.
//!
//! Every entry carries the strain it was found in (a tag, so one table can serve
//! several strains, and a new strain needs no clearing: the old entries are stale and
//! replaced first).
//!
//! A table starts with a few megabytes of its buckets in use and doubles them as they
//! fill (see [`INITIAL_TT_BYTES`]), so a short analysis never touches the rest.
//!
//! One table may be shared by several threads: every slot is two atomic
//! words, the data and the key XOR the data, so a slot torn by two writers fails the
//! key check and reads as a miss (lockless hashing). Each thread reaches the table
//! through its own [`TableHandle`], which keeps its counters.
//!
//! The same holds between processes on one host that open one table file (see
//! [`Table::open_file`]). Its entries outlive them, so its format is versioned
//! ([`TABLE_FORMAT`](super::table_memory::TABLE_FORMAT)).

use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use super::contract::Strain;
use super::rules::suit_pair_table;
use super::table_memory::{Header, TableFileError, TableMemory};

/// Default table size in bytes.
pub const DEFAULT_TT_BYTES: usize = 64 << 20;

/// A table uses this many bytes of its memory at first (or all of it, if less) and
/// doubles the part in use whenever that is half full. The rest is never touched until
/// needed: on a virtual machine the first touch of fresh memory is the dearest part of
/// making a table (0.13-0.16 s for 64 MB on ours, against 0.01 s for memory the machine
/// already backs), and a short analysis fills a few megabytes.
const INITIAL_TT_BYTES: usize = 4 << 20;

/// A slot: `data` packs the fields below, `check` is the key XOR `data`.
#[repr(C)]
#[derive(Default, Debug)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 16);

impl Slot {
    /// No entry: 0 tricks remaining.
    #[inline]
    fn is_empty(&self) -> bool {
        Data::unpack(self.data.load(Relaxed)).tricks == 0
    }

    fn empty(&self) {
        self.data.store(0, Relaxed);
        self.check.store(0, Relaxed);
    }
}

/// The fields of a slot's data word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Data {
    /// Lower / upper bound of the declarer's tricks in the remaining tricks.
    lo: u8,
    hi: u8,
    /// Declarer seat relative to the leader (0..2).
    declarer_rel: u8,
    /// Tricks remaining; 0 marks an empty slot.
    tricks: u8,
    /// Best lead found (card id), or `NO_MOVE`.
    best: u8,
    generation: u8,
    /// [`strain_tag`] of the strain the bounds hold for.
    strain: u8,
    /// [`scope_tag`] of the out-of-play cards of the search that last stored it.
    scope: u8,
}

impl Data {
    #[inline]
    fn pack(self) -> u64 {
        u64::from_le_bytes([
            self.lo,
            self.hi,
            self.declarer_rel,
            self.tricks,
            self.best,
            self.generation,
            self.strain,
            self.scope,
        ])
    }

    #[inline]
    fn unpack(word: u64) -> Data {
        let b = word.to_le_bytes();
        Data {
            lo: b[0],
            hi: b[1],
            declarer_rel: b[2],
            tricks: b[3],
            best: b[4],
            generation: b[5],
            strain: b[6],
            scope: b[7],
        }
    }
}

const WAYS: usize = 4;

#[repr(C, align(64))]
#[derive(Default)]
pub(crate) struct Bucket([Slot; WAYS]);

const _: () = assert!(std::mem::size_of::<Bucket>() == 64);

pub(crate) const NO_MOVE: u8 = 0xff;

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe {
    pub lo: u8,
    pub hi: u8,
    pub best: u8,
}

/// The table itself, shareable between threads (and, as a table file, between
/// processes).
pub(crate) struct Table {
    /// The buckets, and the header with the generation and the count of used slots.
    buckets: TableMemory,
    /// Index mask: the number of buckets in use, minus one. They are the first ones;
    /// the count doubles as they fill, up to all of them.
    mask: AtomicUsize,
    /// Set while one thread doubles the buckets in use.
    growing: AtomicBool,
}

impl Table {
    /// A table of about `bytes` bytes (rounded down to a power of two number of 64-byte
    /// buckets, at least one), of which it uses a part at first (see
    /// [`INITIAL_TT_BYTES`]).
    pub fn new(bytes: usize) -> Table {
        Table::with_sizes(INITIAL_TT_BYTES, bytes)
    }

    /// A table of `bytes` that uses `initial_bytes` at first (each rounded as in
    /// [`Table::new`]).
    fn with_sizes(initial_bytes: usize, bytes: usize) -> Table {
        let count = bucket_count(bytes);
        Table {
            buckets: TableMemory::private(count),
            mask: AtomicUsize::new(count.min(bucket_count(initial_bytes)) - 1),
            growing: AtomicBool::new(false),
        }
    }

    /// The table in the table file at `path`, of about `bytes` bytes (rounded as in
    /// [`Table::new`]), created if missing. Every process opening the file searches
    /// with the same entries. A process on it never grows it: the others could not
    /// follow. All of it is in use from the start.
    pub fn open_file(path: &Path, bytes: usize) -> Result<Table, TableFileError> {
        let count = bucket_count(bytes);
        Ok(Table {
            buckets: TableMemory::file(path, count)?,
            mask: AtomicUsize::new(count - 1),
            growing: AtomicBool::new(false),
        })
    }

    fn header(&self) -> &Header {
        self.buckets.header()
    }

    /// Slots of the whole table.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * WAYS
    }

    /// Slots of the buckets in use now.
    #[cfg(test)]
    fn slots_in_use(&self) -> usize {
        (self.mask.load(Relaxed) + 1) * WAYS
    }

    /// Occupied slots, as of the last finished solve of each thread.
    pub fn used(&self) -> usize {
        self.header().used.load(Relaxed)
    }

    /// Empties every slot. Meant for a table no other thread is using.
    pub fn clear(&self) {
        let in_use = self.mask.load(Relaxed) + 1;
        for slot in self.buckets[..in_use].iter().flat_map(|b| &b.0) {
            slot.empty();
        }
        self.header().used.store(0, Relaxed);
        self.header().generation.store(0, Relaxed);
    }

    /// Doubles the buckets in use, if `mask` is still the table's and there are more
    /// buckets. Each entry of bucket `j` stays there or moves to bucket `j + count`, the
    /// one its index names with one more bit: that bucket is new and empty, so every
    /// entry fits. Another thread already growing the table makes this a no-op.
    ///
    /// Other threads go on solving meanwhile with the old mask, until their next solve:
    /// they miss the entries moved, and their own stores to those may land where the
    /// new mask never looks (they age out). That costs only time: every entry read
    /// still carries its own key.
    fn grow(&self, mask: usize) {
        let count = mask + 1;
        if count >= self.buckets.len() || self.growing.swap(true, Ordering::Acquire) {
            return;
        }
        if self.mask.load(Ordering::Acquire) == mask {
            let new_mask = 2 * count - 1;
            for (j, bucket) in self.buckets[..count].iter().enumerate() {
                for slot in &bucket.0 {
                    let word = slot.data.load(Relaxed);
                    let d = Data::unpack(word);
                    let key = slot.check.load(Relaxed) ^ word;
                    if d.tricks == 0 || index(key, d.declarer_rel, new_mask) == j {
                        continue;
                    }
                    let target = &self.buckets[j + count].0;
                    if let Some(free) = target.iter().find(|s| s.is_empty()) {
                        write(free, key, d);
                    }
                    slot.empty();
                }
            }
            self.mask.store(new_mask, Ordering::Release);
        }
        self.growing.store(false, Ordering::Release);
    }
}

/// Bucket index from the high bits of a multiplicative hash (the low bits of a product
/// only depend on the low bits of the key), cut by `mask`.
#[inline]
fn index(key: u64, declarer_rel: u8, mask: usize) -> usize {
    let h = (key ^ (u64::from(declarer_rel) << 62)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let h = h ^ (h >> 32);
    (h.wrapping_mul(0xD6E8_FEB8_6659_FD93) >> 32) as usize & mask
}

/// Buckets in about `bytes` bytes: a power of two, at least one.
fn bucket_count(bytes: usize) -> usize {
    let wanted = (bytes / std::mem::size_of::<Bucket>()).max(1);
    1usize << (usize::BITS - 1 - wanted.leading_zeros())
}

/// One thread's access to a table: its counters and current generation.
pub(crate) struct TableHandle {
    table: Arc<Table>,
    /// The table's index mask as of this handle's last solve start.
    mask: usize,
    generation: u8,
    /// Tag of the strain being searched.
    strain: u8,
    /// Tag of the cards out of play in the positions being searched.
    scope: u8,
    pub probes: u64,
    pub hits: u64,
    pub stores: u64,
    /// Slots this handle filled since it last added them to the table's count (one
    /// shared atomic add per solve, not per insert: threads would contend for it).
    filled: usize,
}

impl TableHandle {
    pub fn new(table: Arc<Table>) -> TableHandle {
        TableHandle {
            mask: table.mask.load(Relaxed),
            table,
            generation: 0,
            strain: 0,
            scope: 0,
            probes: 0,
            hits: 0,
            stores: 0,
            filled: 0,
        }
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    pub fn shared_table(&self) -> Arc<Table> {
        self.table.clone()
    }

    /// Entries are read and written for `strain` from now on.
    pub fn set_strain(&mut self, strain: Strain) {
        self.strain = strain_tag(strain);
    }

    /// Entries are stored for positions whose out-of-play cards (in no hand and not on
    /// the table) are `out_of_play`. Entries stored with other cards out of play, or
    /// for another strain, are replaced before any of this scope's: they come from
    /// another analysis (or from earlier tricks of a deal) and are rarely found again.
    /// Kept on an equal footing, they cost the next analysis 7-19% more nodes on the
    /// standard problems. While they last they stay readable: their bounds hold.
    pub fn set_scope(&mut self, out_of_play: u32) {
        self.scope = scope_tag(out_of_play);
    }

    /// Adds the slots this handle filled to the table's count, and grows the table if
    /// that makes the part in use half full; called after each solve.
    pub fn count_filled(&mut self) {
        if self.filled > 0 {
            let used = self.table.header().used.fetch_add(self.filled, Relaxed) + self.filled;
            self.filled = 0;
            if used >= (self.mask + 1) * WAYS / 2 {
                self.table.grow(self.mask);
            }
        }
    }

    /// Starts a new search generation (entries of older ones are replaced first) on the
    /// table's current buckets.
    pub fn next_generation(&mut self) {
        self.generation = self
            .table
            .header()
            .generation
            .fetch_add(1, Relaxed)
            .wrapping_add(1);
        self.mask = self.table.mask.load(Ordering::Acquire);
    }

    /// Starts loading the bucket of a position that is about to be probed.
    #[inline]
    pub fn prefetch(&self, key: u64, declarer_rel: u8) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr = self
                .table
                .buckets
                .as_ptr()
                .wrapping_add(index(key, declarer_rel, self.mask));
            // SAFETY: prefetching is a hint; it never faults, even on a bad address.
            #[allow(unused_unsafe)]
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr.cast());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (key, declarer_rel);
    }

    #[inline]
    pub fn probe(&mut self, key: u64, declarer_rel: u8) -> Option<Probe> {
        self.probes += 1;
        let bucket = &self.table.buckets[index(key, declarer_rel, self.mask)];
        for slot in &bucket.0 {
            let word = slot.data.load(Relaxed);
            if slot.check.load(Relaxed) ^ word != key {
                continue;
            }
            let d = Data::unpack(word);
            if d.declarer_rel == declarer_rel && d.strain == self.strain && d.tricks != 0 {
                self.hits += 1;
                return Some(Probe {
                    lo: d.lo,
                    hi: d.hi,
                    best: d.best,
                });
            }
        }
        None
    }

    /// Narrows the stored bounds (or inserts a new entry) for this position.
    #[inline]
    pub fn store(&mut self, key: u64, declarer_rel: u8, tricks: u8, lo: u8, hi: u8, best: u8) {
        self.stores += 1;
        let table = &*self.table;
        let generation = self.generation;
        let bucket = &table.buckets[index(key, declarer_rel, self.mask)].0;
        let mut victim = 0;
        let mut victim_score = i32::MAX;
        for (i, slot) in bucket.iter().enumerate() {
            let word = slot.data.load(Relaxed);
            let d = Data::unpack(word);
            if d.tricks != 0
                && slot.check.load(Relaxed) ^ word == key
                && d.declarer_rel == declarer_rel
                && d.strain == self.strain
            {
                let merged = Data {
                    lo: d.lo.max(lo),
                    hi: d.hi.min(hi),
                    best: if best != NO_MOVE { best } else { d.best },
                    generation,
                    scope: self.scope,
                    ..d
                };
                write(slot, key, merged);
                return;
            }
            // Prefer empty slots, then other scopes' entries, then stale generations,
            // then the shallowest entry.
            let score = if d.tricks == 0 {
                -1000
            } else if d.strain != self.strain || d.scope != self.scope {
                -500 + i32::from(d.tricks)
            } else {
                let age = i32::from(generation.wrapping_sub(d.generation).min(15));
                i32::from(d.tricks) * 2 - age * 4
            };
            if score < victim_score {
                victim_score = score;
                victim = i;
            }
        }
        let slot = &bucket[victim];
        if slot.is_empty() {
            self.filled += 1;
        }
        let data = Data {
            lo,
            hi,
            declarer_rel,
            tricks,
            best,
            generation,
            strain: self.strain,
            scope: self.scope,
        };
        write(slot, key, data);
    }
}

/// A non-zero tag per strain.
fn strain_tag(strain: Strain) -> u8 {
    match strain {
        Strain::Trump(suit) => 1 + suit.index() as u8,
        Strain::NoTrump => 5,
        Strain::Misere => 6,
    }
}

/// An 8-bit tag of a set of out-of-play cards (a hash: two sets may share a tag, which
/// only weakens the replacement preference, never the bounds).
fn scope_tag(out_of_play: u32) -> u8 {
    (out_of_play.wrapping_mul(0x9E37_79B1) >> 24) as u8
}

/// Writes a slot; a reader that sees one word old and one new fails the key check.
#[inline]
fn write(slot: &Slot, key: u64, data: Data) {
    let word = data.pack();
    slot.data.store(word, Relaxed);
    slot.check.store(key ^ word, Relaxed);
}

/// The per-suit hash code of a trick-boundary position.
///
/// `rel` holds the hands relative to the leader: `rel[0]` leader, `rel[1]` next, `rel[2]`
/// the one after. For each suit, walk the remaining cards from highest to lowest and put
/// the holder's 2-bit code at bits 2i (i-th remaining card), then the terminator `11`.
/// Played cards are skipped, so equal neighbours collapse. A full suit (8 cards) needs
/// 18 bits, but its bits 14..16 hold a holder code (never `11`), so the low 16 bits stay
/// unique (the seed's argument) and 4 suits fit in 64 bits.
#[inline]
pub(crate) fn key(rel: [u32; 3]) -> u64 {
    let mut key = 0u64;
    for s in 0..4 {
        let shift = 8 * s;
        let h1 = (rel[1] >> shift) & 0xff;
        let h2 = (rel[2] >> shift) & 0xff;
        let live = ((rel[0] >> shift) & 0xff) | h1 | h2;
        let code = u64::from(holder_bits(h1, live))
            | (u64::from(holder_bits(h2, live)) << 1)
            | u64::from(SUIT_TERMINATOR[live as usize]);
        key |= (code & 0xffff) << (16 * s);
    }
    key
}

/// The bits of `hand` at the set positions of `live`, gathered to the low end and
/// spread to the even bit positions 0, 2, ..., 14 (one lookup in a 128 KiB table).
#[inline]
fn holder_bits(hand: u32, live: u32) -> u16 {
    HOLDER_BITS[((live as usize) << 8) | hand as usize]
}

static HOLDER_BITS: [u16; 65536] = suit_pair_table!(u16, spread_holder_bits);

/// Per suit, indexed by the live cards: the terminator `11` after their holder codes,
/// cut to 16 bits like the code (a full suit's lies beyond them).
static SUIT_TERMINATOR: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut live = 0;
    while live < 256 {
        t[live] = (3u32 << (2 * (live as u32).count_ones())) as u16;
        live += 1;
    }
    t
};

/// The bits of `hand` at the set positions of `live`, gathered to the low end and
/// spread to the even bit positions.
const fn spread_holder_bits(live: u32, hand: u32) -> u16 {
    let mut out = 0u16;
    let mut k = 0;
    let mut b = 0;
    while b < 8 {
        if live & (1 << b) != 0 {
            if hand & (1 << b) != 0 {
                out |= 1 << (2 * k);
            }
            k += 1;
        }
        b += 1;
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::table_memory::TABLE_FORMAT;

    #[test]
    fn new_table_is_empty_and_stores() {
        let mut t = TableHandle::new(Arc::new(Table::new(1 << 20)));
        assert!(t
            .table()
            .buckets
            .iter()
            .all(|b| b.0.iter().all(|s| s.data.load(Relaxed) == 0)));
        assert_eq!(t.table().capacity(), (1 << 20) / 16);
        assert_eq!(t.table().slots_in_use(), (1 << 20) / 16);
        let key = key([0b111, 0b111 << 8, 0b111 << 16]);
        assert!(t.probe(key, 1).is_none());
        t.store(key, 1, 3, 1, 2, 5);
        t.count_filled();
        let p = t.probe(key, 1).unwrap();
        assert_eq!((p.lo, p.hi, p.best), (1, 2, 5));
        assert!(t.probe(key, 2).is_none());
        assert_eq!(t.table().used(), 1);
    }

    #[test]
    fn entries_hold_for_their_strain_only() {
        let table = Arc::new(Table::new(1 << 20));
        let mut spades = TableHandle::new(table.clone());
        spades.set_strain(Strain::Trump(crate::Suit::Spades));
        let mut misere = TableHandle::new(table);
        misere.set_strain(Strain::Misere);
        let key = key([0b111, 0b111 << 8, 0b111 << 16]);
        spades.store(key, 1, 3, 2, 2, NO_MOVE);
        assert!(misere.probe(key, 1).is_none());
        misere.store(key, 1, 3, 0, 0, NO_MOVE);
        assert_eq!(spades.probe(key, 1).map(|p| p.lo), Some(2));
        assert_eq!(misere.probe(key, 1).map(|p| p.hi), Some(0));
    }

    #[test]
    fn another_scope_is_replaced_first() {
        // One bucket of four slots, shared by two analyses with different cards out of
        // play (so different scopes).
        let table = Arc::new(Table::new(std::mem::size_of::<Bucket>()));
        let (mut first, mut second) = (TableHandle::new(table.clone()), TableHandle::new(table));
        first.set_scope(0b11);
        second.set_scope(0b11 << 8);
        assert_ne!(first.scope, second.scope);
        let keys: Vec<u64> = (1..6)
            .map(|n| key([0b111, 0b111 << 8, ((1 << n) - 1) << 16]))
            .collect();
        // The first analysis leaves three deep entries; the second stores a shallow one.
        for &k in &keys[..3] {
            first.store(k, 0, 9, 4, 4, NO_MOVE);
        }
        second.store(keys[3], 0, 3, 1, 1, NO_MOVE);
        // The bucket is full: the second analysis's next entry must replace one of the
        // first's, deep as they are, not its own shallow one.
        second.store(keys[4], 0, 4, 2, 2, NO_MOVE);
        assert!(second.probe(keys[3], 0).is_some());
        assert!(second.probe(keys[4], 0).is_some());
        let kept = keys[..3].iter().filter(|&&k| first.probe(k, 0).is_some());
        assert_eq!(kept.count(), 2);
    }

    #[test]
    fn grows_when_half_full_keeping_every_entry() {
        let bucket = std::mem::size_of::<Bucket>();
        // 2 buckets (8 slots) in use at first, of 16 (64 slots).
        let table = Arc::new(Table::with_sizes(2 * bucket, 16 * bucket));
        let mut t = TableHandle::new(table.clone());
        let keys: Vec<u64> = (0..40u32)
            .map(|n| key([n | 1 << 31, (n + 1) << 8, 1 << 20]))
            .collect();
        assert_eq!(table.capacity(), 64);
        let mut in_use = vec![table.slots_in_use()];
        for (i, &k) in keys.iter().enumerate() {
            t.next_generation();
            t.store(k, 0, 5, 2, 3, NO_MOVE);
            let held = |t: &mut TableHandle| -> Vec<u64> {
                keys[..=i]
                    .iter()
                    .copied()
                    .filter(|&k| t.probe(k, 0).is_some())
                    .collect()
            };
            let before = held(&mut t);
            t.count_filled();
            // The handle takes the new mask at its next solve start.
            t.next_generation();
            if table.slots_in_use() != *in_use.last().unwrap() {
                in_use.push(table.slots_in_use());
                assert_eq!(held(&mut t), before, "lost growing to {}", in_use.len());
            }
        }
        // Doubling at half fill: 8 slots, then 16, 32 and 64, never more.
        assert_eq!(in_use, [8, 16, 32, 64]);
        assert!(table.used() <= table.capacity());
    }

    #[test]
    fn growing_under_two_threads_never_mixes_up_entries() {
        let bucket = std::mem::size_of::<Bucket>();
        let table = Arc::new(Table::with_sizes(4 * bucket, 1024 * bucket));
        // Each key's bounds are a function of the key, so a hit shows whose entry it is.
        let bounds = |k: u64| ((k % 5) as u8, (k % 5 + k % 3) as u8);
        std::thread::scope(|scope| {
            for seed in 1..=2u64 {
                let table = table.clone();
                scope.spawn(move || {
                    let mut t = TableHandle::new(table);
                    let mut x = seed;
                    for _ in 0..20_000 {
                        t.next_generation();
                        for _ in 0..4 {
                            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                            let k = (x >> 33) % 3000 + 1;
                            if let Some(p) = t.probe(k, 0) {
                                assert_eq!((p.lo, p.hi), bounds(k), "key {k}");
                            }
                            let (lo, hi) = bounds(k);
                            t.store(k, 0, 5, lo, hi, NO_MOVE);
                        }
                        t.count_filled();
                    }
                });
            }
        });
        // 3,000 keys: the table grew from 16 slots to at least 4,096.
        assert!(table.slots_in_use() >= 4096, "{}", table.slots_in_use());
    }

    #[test]
    fn seed_example_code() {
        // Highest spade with the next player (01), second with the one after (10),
        // last with the leader (00): code 11 00 10 01.
        let rel = [1 << 7, 1 << 0, 1 << 3];
        assert_eq!(key(rel) & 0xffff, 0b11_00_10_01);
        // Other suits are empty: terminator only.
        assert_eq!(key(rel) >> 16, 0b11 | 0b11 << 16 | 0b11 << 32);
    }

    #[test]
    fn played_small_cards_collapse() {
        // Leader AK, next QJ vs leader AK, next Q7 (J..8 gone): same code.
        let a = [0b11, 0b1100, 0];
        let b = [0b11, 0b1000_0100, 0];
        assert_eq!(key(a), key(b));
        let c = [0b11, 0b1000_0100, 0b1000];
        assert_ne!(key(a), key(c));
    }

    /// The key straight from its definition: per suit, holder codes from the highest
    /// remaining card down, then the terminator `11`, cut to 16 bits.
    fn key_by_definition(rel: [u32; 3]) -> u64 {
        let mut key = 0u64;
        for s in 0..4 {
            let mut code = 0u64;
            let mut i = 0;
            for card in 8 * s..8 * s + 8 {
                if let Some(holder) = rel.iter().position(|h| h & (1 << card) != 0) {
                    code |= (holder as u64) << (2 * i);
                    i += 1;
                }
            }
            code |= 3 << (2 * i);
            key |= (code & 0xffff) << (16 * s);
        }
        key
    }

    proptest::proptest! {
        /// Each card goes to one of the three hands or is gone (0..4).
        #[test]
        fn key_matches_its_definition(owners in proptest::collection::vec(0u8..4, 32)) {
            let mut rel = [0u32; 3];
            for (card, &owner) in owners.iter().enumerate() {
                if owner < 3 {
                    rel[usize::from(owner)] |= 1 << card;
                }
            }
            proptest::prop_assert_eq!(key(rel), key_by_definition(rel));
        }
    }

    #[test]
    fn full_suit_stays_unique() {
        // All 8 cards present vs 7 cards whose holders match the low bits.
        let full = [0xff, 0, 0];
        let seven = [0x7f, 0, 0];
        assert_ne!(key(full) & 0xffff, key(seven) & 0xffff);
    }

    /// A table file path under the temporary directory, removed when dropped.
    pub(in super::super) struct TempTableFile(pub std::path::PathBuf);

    impl TempTableFile {
        pub fn new(name: &str) -> TempTableFile {
            let file = format!("deckhand-test-{}-{name}.table", std::process::id());
            let path = std::env::temp_dir().join(file);
            let _ = std::fs::remove_file(&path);
            TempTableFile(path)
        }
    }

    impl Drop for TempTableFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    #[test]
    fn a_table_file_is_shared_and_outlives_its_users() {
        let file = TempTableFile::new("shared");
        let key = key([0b111, 0b111 << 8, 0b111 << 16]);
        // Two mappings of one file, as two processes would have.
        let first = Arc::new(Table::open_file(&file.0, 1 << 20).unwrap());
        let second = Arc::new(Table::open_file(&file.0, 1 << 20).unwrap());
        assert_eq!(first.capacity(), (1 << 20) / 16);
        let (mut a, mut b) = (TableHandle::new(first), TableHandle::new(second));
        a.next_generation();
        b.next_generation();
        assert_eq!(
            (a.generation, b.generation),
            (1, 2),
            "one generation counter"
        );
        assert!(b.probe(key, 1).is_none());
        a.store(key, 1, 3, 1, 2, 5);
        a.count_filled();
        let p = b.probe(key, 1).expect("stored through the other mapping");
        assert_eq!((p.lo, p.hi, p.best), (1, 2, 5));
        assert_eq!(b.table().used(), 1);
        drop((a, b));
        // Every user gone, the entries stay for the next one.
        let mut c = TableHandle::new(Arc::new(Table::open_file(&file.0, 1 << 20).unwrap()));
        assert_eq!(c.probe(key, 1).map(|p| p.hi), Some(2));
        assert_eq!(std::fs::metadata(&file.0).unwrap().len(), 4096 + (1 << 20));
    }

    #[test]
    fn a_table_file_of_another_size_format_or_mode_is_refused_and_left_alone() {
        use crate::TableFileError;
        let file = TempTableFile::new("refused");
        drop(Table::open_file(&file.0, 1 << 20).unwrap());
        let err = Table::open_file(&file.0, 2 << 20).err().unwrap();
        assert!(
            matches!(
                err,
                TableFileError::Size {
                    found_mib: 1,
                    wanted_mib: 2,
                    ..
                }
            ),
            "{err}"
        );
        // Another format number in the header.
        let mut bytes = std::fs::read(&file.0).unwrap();
        bytes[8] = 99;
        std::fs::write(&file.0, &bytes).unwrap();
        let err = Table::open_file(&file.0, 1 << 20).err().unwrap();
        assert!(err.to_string().contains("format 99"), "{err}");
        // Not a table at all: refused, and not overwritten.
        for content in [&b"precious"[..], &[0u8; 5000][..]] {
            std::fs::write(&file.0, content).unwrap();
            let err = Table::open_file(&file.0, 1 << 20).err().unwrap();
            assert!(matches!(err, TableFileError::Format { .. }), "{err}");
            assert_eq!(std::fs::read(&file.0).unwrap(), content);
        }
        // A header that names more buckets than the file holds.
        bytes.truncate(4096 + 64);
        bytes[8] = TABLE_FORMAT as u8;
        std::fs::write(&file.0, &bytes).unwrap();
        let err = Table::open_file(&file.0, 1 << 20).err().unwrap();
        assert!(err.to_string().contains("bytes long"), "{err}");
        // Writable by others: refused, whatever it holds.
        std::fs::remove_file(&file.0).unwrap();
        drop(Table::open_file(&file.0, 1 << 20).unwrap());
        let others_write = std::os::unix::fs::PermissionsExt::from_mode(0o622);
        std::fs::set_permissions(&file.0, others_write).unwrap();
        let err = Table::open_file(&file.0, 1 << 20).err().unwrap();
        assert!(err.to_string().contains("mode 622"), "{err}");
        let dir = std::env::temp_dir()
            .join("deckhand-no-such-dir")
            .join("t.table");
        let err = Table::open_file(&dir, 1 << 20).err().unwrap();
        assert!(matches!(err, TableFileError::Io { .. }), "{err}");
    }

    /// What a table file's entries mean: their key, slot layout, bucket index and
    /// strain tags. A change to any of them must bump [`TABLE_FORMAT`] (files of the
    /// old format are then refused, not misread) and update the fingerprint here.
    #[test]
    fn format_is_pinned() {
        let mut fingerprint = 0xcbf2_9ce4_8422_2325u64;
        let mut mix = |x: u64| {
            for byte in x.to_le_bytes() {
                fingerprint = (fingerprint ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
            }
        };
        let mut x = 1u64;
        for _ in 0..1000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Three disjoint hands from the random bits.
            let (a, b) = ((x >> 32) as u32, x as u32);
            let rel = [a & b, a & !b, !a & b];
            let k = key(rel);
            mix(k);
            mix(index(k, (x % 3) as u8, 0xffff) as u64);
        }
        let data = Data {
            lo: 1,
            hi: 2,
            declarer_rel: 3,
            tricks: 4,
            best: 5,
            generation: 6,
            strain: 7,
            scope: 8,
        };
        mix(data.pack());
        for strain in [
            Strain::Trump(crate::Suit::Spades),
            Strain::Trump(crate::Suit::Hearts),
            Strain::Trump(crate::Suit::Diamonds),
            Strain::Trump(crate::Suit::Clubs),
            Strain::NoTrump,
            Strain::Misere,
        ] {
            mix(u64::from(strain_tag(strain)));
        }
        mix(std::mem::size_of::<Bucket>() as u64);
        mix(WAYS as u64);
        assert_eq!(
            (TABLE_FORMAT, fingerprint),
            (1, 1_998_471_854_469_890_197),
            "the table's format changed: bump TABLE_FORMAT and update this fingerprint"
        );
    }
}
