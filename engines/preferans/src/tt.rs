//! Transposition table over trick-boundary positions.
//!
//! A position's identity is its key (see [`key`]) and the declarer's seat relative to
//! the leader: under 2^55 values, mixed by a bijection ([`mix`]). The mixed identity's
//! low bits pick the bucket and its bits from 16 up are the slot's tag, so the bucket
//! (at least 2^16 of them), the tag and a bit saying whether the entry is a position's
//! own or its class's (see [`keys`]) together name the entry exactly: no two positions
//! (or classes) ever share an entry. An entry holds a lower and an upper bound on the
//! declarer's tricks in the remaining tricks, plus the best lead seen, in 8 bytes: a
//! bucket holds 8, with a reliance word for each (see [`reliance_word`]) in a second
//! cache line. Searches without class entries (misère and no-trump) write no reliance
//! words, so their entries use both lines of a bucket as lines of 8 slots each, a tag
//! bit picking the line: twice the entries in the same memory (see [`Bucket`]).
//!
//! A class entry holds for every position of its class: two positions are in one class
//! when they differ only in which defender holds which of the cards below the
//! declarer's lowest card of each suit (its tail cards, [`tail_cards`]), each defender
//! holding as many of them. The search stores a bound as its class's when its proof
//! never compared two tail cards (see search.rs); a bound found in one layout then
//! serves every layout that deals the defenders' small cards otherwise.
//!
//! Every entry carries the strain it was found in (a tag, so one table can serve
//! several strains, and a new strain needs no clearing: the old entries are stale and
//! replaced first).
//!
//! A table starts with a few megabytes of its buckets in use and doubles them only when
//! a sample of its buckets shows that twice the buckets would turn enough misses into
//! hits (see [`TableHandle::finish_solve`]): a short analysis never touches the rest, and
//! a long one keeps its entries in the caches unless more entries pay.
//!
//! One table may be shared by several threads: every slot is one atomic word, read and
//! written whole. Each thread reaches the table through its own [`TableHandle`], which
//! keeps its counters.
//!
//! The same holds between processes on one host that open one table file (see
//! [`Table::open_file`]). Its entries outlive them, so its format is versioned
//! ([`TABLE_FORMAT`](super::table_memory::TABLE_FORMAT)).

use std::hint::select_unpredictable;
use std::num::NonZeroU64;
use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::contract::Strain;
use super::rules::{fill_up_suits, suit_len, suit_pair_table};
use super::table_memory::{Header, TableFileError, TableMemory};

/// Default table size in bytes: the most a table grows to (see
/// `TableHandle::finish_solve`). 128 MB: 8 M slots (half the bytes are reliance
/// words). When tables grew whenever three quarters full, preferansRu7 on all layouts
/// took 683.2 nodes per layout at 64 MB against 610.4.
pub const DEFAULT_TT_BYTES: usize = 128 << 20;

/// A table uses this many bytes of its memory at first (or all of it, if less: its
/// fewest buckets) and doubles the part in use when that pays (see
/// [`TableHandle::finish_solve`]). The rest is never touched until needed: on a virtual
/// machine the first touch of fresh memory is the dearest part of making a table (about
/// 8 ms per 2 MB huge page on ours), and a short analysis fills a few megabytes.
const INITIAL_TT_BYTES: usize = 8 << 20;

/// The fewest buckets of a table (8 MB): the bucket index holds the low
/// [`INDEX_BITS`] bits of the mixed identity, the slot's tag the rest.
const MIN_BUCKETS: usize = 1 << INDEX_BITS;
const INDEX_BITS: u32 = 16;

/// How many of the buckets in use, evenly spaced, remember the entries they evict, to
/// tell whether doubling the buckets would pay (see [`TableHandle::finish_solve`]).
const SAMPLED_BUCKETS: usize = 1 << 10;
/// Probes of sampled buckets (as estimated from all probes) per growth decision.
const GROWTH_WINDOW: u64 = 4096;
/// The buckets in use double when, in a window, this many probes of every 1000 missed an
/// entry that a sampled bucket had evicted: a table of twice the buckets would have
/// held it.
const GROWTH_HITS_PER_MILLE: u64 = 30;

/// A slot word: the tag (the mixed identity from bit [`INDEX_BITS`] up, 39 bits) above
/// 25 bits of [`Data`]. The zero word is an empty slot: an entry has a strain tag.
const DATA_BITS: u32 = 25;
const IDENTITY_BITS: u32 = 55;
const IDENTITY_MASK: u64 = (1 << IDENTITY_BITS) - 1;
const _: () = assert!(IDENTITY_BITS - INDEX_BITS + DATA_BITS == 64);

/// The fields of a slot's data bits, and their widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Data {
    /// Lower / upper bound of the declarer's tricks in the remaining tricks (4 bits
    /// each).
    lo: u8,
    hi: u8,
    /// Tricks remaining, 2 to 9 (3 bits; 10 reads as 9, which only weighs the entry
    /// as a victim).
    tricks: u8,
    /// Whether the bounds hold for the position's class (1 bit).
    class: bool,
    /// Best lead found (card id), or `NO_MOVE` (6 bits).
    best: u8,
    /// [`strain_tag`] of the strain the bounds hold for (3 bits).
    strain: u8,
    /// The search generation that stored it, modulo 8 (3 bits).
    generation: u8,
    /// [`scope_tag`] of the out-of-play cards of the search that last stored it (1 bit).
    scope: u8,
}

impl Data {
    #[inline(always)]
    fn pack(self) -> u64 {
        let best = if self.best == NO_MOVE {
            32
        } else {
            self.best & 31
        };
        u64::from(self.lo & 15)
            | u64::from(self.hi & 15) << 4
            | u64::from(self.tricks.clamp(2, 9) - 2) << 8
            | u64::from(self.class) << CLASS_SHIFT
            | u64::from(best) << 12
            | u64::from(self.strain & 7) << STRAIN_SHIFT
            | u64::from(self.generation & 7) << 21
            | u64::from(self.scope & 1) << 24
    }

    #[inline(always)]
    fn unpack(word: u64) -> Data {
        let best = ((word >> 12) & 63) as u8;
        Data {
            lo: (word & 15) as u8,
            hi: ((word >> 4) & 15) as u8,
            tricks: ((word >> 8) & 7) as u8 + 2,
            class: (word >> CLASS_SHIFT) & 1 != 0,
            best: if best >= 32 { NO_MOVE } else { best },
            strain: ((word >> STRAIN_SHIFT) & 7) as u8,
            generation: ((word >> 21) & 7) as u8,
            scope: ((word >> 24) & 1) as u8,
        }
    }
}

const WAYS: usize = 8;
/// Where a slot's class bit and strain sit in its data bits.
const CLASS_SHIFT: u32 = 11;
const STRAIN_SHIFT: u32 = 18;
/// The bits of a slot word that must equal the searched entry's: its tag, whether it is
/// a class's, and the strain.
const MATCH_BITS: u64 = !0 << DATA_BITS | 1 << CLASS_SHIFT | 7 << STRAIN_SHIFT;

/// Two cache lines of eight words. In a trump game (a search with class entries) the
/// first holds the slots and the second a reliance word per slot (see
/// [`reliance_word`]); a probe reads the first, and a probe of a position's own entry
/// the second too. In misère and no-trump games both lines hold slots: an entry's line
/// is its identity's top bit (a tag bit, so bucket, line and tag still name the entry
/// exactly), and a probe reads that line only.
///
/// Both uses share one table (a worker's table serves every strain in turn), kept
/// apart by [`RELIANCE_MARK`]: a reliance word never reads as a slot of misère or
/// no-trump, nor their slot as a reliance word. Where one overwrites the other, an
/// entry is lost or its reliance word is (every tail card then counts as relied on):
/// time, never a wrong bound.
///
/// Against the second line left empty, on all layouts of the 60 random views of
/// `deckhand bench preferans --random 60 --seed 7` (both binaries at once, one core
/// each): misère 1,532.8 -> 1,323.8 nodes per layout and 81.7 -> 71.4 s (the costliest
/// view, `*QJ*T.K87.KT8.KQ9`, 4,053.5 -> 3,186.2: its table fills long before the
/// end), no-trump 207.7 -> 204.8, trump unchanged. A probe reading both lines (16
/// ways) took 1,321.3 nodes per layout but more time than before (79.2 s against
/// 77.1 s).
#[repr(C, align(128))]
#[derive(Default)]
pub(crate) struct Bucket {
    lines: [[AtomicU64; WAYS]; 2],
}

impl Bucket {
    #[inline(always)]
    fn slots(&self) -> &[AtomicU64; WAYS] {
        &self.lines[0]
    }

    #[inline(always)]
    fn reliance(&self) -> &[AtomicU64; WAYS] {
        &self.lines[1]
    }

    /// Empties every word, writing only those that are set (fresh memory stays
    /// untouched).
    fn empty(&self) {
        for slot in self.lines.iter().flatten() {
            if slot.load(Relaxed) != 0 {
                slot.store(0, Relaxed);
            }
        }
    }
}

const _: () = assert!(std::mem::size_of::<Bucket>() == 128);

/// A reliance word: which of a position's tail cards ([`tail_cards`]) the bounds of its
/// own entry relied on (see search.rs), written with the entry by class searches. It is
/// a statement that holds by itself: "this tag's position, in this strain, has bounds
/// `lo..=hi` that rely on these tail cards". So it counts for a slot only when its tag,
/// strain and bounds are the slot's; otherwise (an older entry's word, or a store of
/// another thread in between) every tail card counts as relied on, as before reliance
/// words. Its 25 low bits: `lo` (4), `hi` (4), the trump suit (2, from the strain's
/// tag), and the relied cards' [`relied_code`] ([`RELIED_BITS`]) in bit 10 and bits
/// 12-24, around [`RELIANCE_MARK`]; the tag above them, as in the slot word.
#[inline(always)]
fn reliance_word(tag_bits: u64, strain: u8, lo: u8, hi: u8, code: u32) -> u64 {
    let code = u64::from(code & RELIED_ALL);
    tag_bits
        | (code >> 1) << 12
        | RELIANCE_MARK
        | (code & 1) << 10
        | u64::from(strain.wrapping_sub(1) & 3) << 8
        | u64::from(hi & 15) << 4
        | u64::from(lo & 15)
}

/// Set in every reliance word, at the slot word's class bit, which is clear in every
/// slot of a misère or no-trump search (they have no class entries): so neither reads
/// as the other in a bucket's second line (see [`Bucket`]).
const RELIANCE_MARK: u64 = 1 << CLASS_SHIFT;

/// The bits of a reliance word other than its relied code.
const RELIANCE_MATCH_BITS: u64 = !((RELIED_ALL as u64 >> 1) << 12 | 1 << 10);

/// The relied code `word` holds for the entry of `tag_bits` with bounds `lo..=hi` in
/// `strain`, when it is that entry's reliance word (see [`reliance_word`]).
#[inline(always)]
fn reliance_code(word: u64, tag_bits: u64, strain: u8, lo: u8, hi: u8) -> Option<u32> {
    let said = reliance_word(tag_bits, strain, lo, hi, 0);
    let code = (word >> 12) << 1 | (word >> 10) & 1;
    (word & RELIANCE_MATCH_BITS == said).then_some(code as u32 & RELIED_ALL)
}

/// Tail cards a reliance word names one by one: the first [`RELIED_BITS`] of the
/// position's tail cards in card order. Later ones always count as relied on (a
/// position has more tail cards only when the declarer is void in most suits).
const RELIED_BITS: u32 = 14;
/// The relied code of every tail card.
pub(crate) const RELIED_ALL: u32 = (1 << RELIED_BITS) - 1;

/// The code of the cards `relied` among the tail cards `tail`: bit `i` for the `i`-th
/// tail card in card order. Two positions of one key have their tail cards in the same
/// order (the key fixes which hand holds each live card by rank), so the code means the
/// same cards for every position of the key.
#[inline]
pub(crate) fn relied_code(relied: u32, tail: u32) -> u32 {
    coded_tail_cards(tail)
        .enumerate()
        .fold(0, |code, (i, card)| {
            code | u32::from(relied & card != 0) << i
        })
}

/// The tail cards a relied `code` names among the tail cards `tail` (the inverse of
/// [`relied_code`]), and every tail card past the first [`RELIED_BITS`].
#[inline]
pub(crate) fn relied_cards(code: u32, tail: u32) -> u32 {
    let (mut cards, mut rest) = (0, tail);
    for (i, card) in coded_tail_cards(tail).enumerate() {
        cards |= card * ((code >> i) & 1);
        rest ^= card;
    }
    cards | rest
}

/// The first [`RELIED_BITS`] tail cards of `tail` in card order, each as a card set:
/// those a relied code names one by one.
#[inline(always)]
fn coded_tail_cards(tail: u32) -> impl Iterator<Item = u32> {
    let mut rest = tail;
    std::iter::from_fn(move || {
        let card = rest & rest.wrapping_neg();
        rest ^= card;
        (card != 0).then_some(card)
    })
    .take(RELIED_BITS as usize)
}

pub(crate) const NO_MOVE: u8 = 0xff;

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe {
    pub lo: u8,
    pub hi: u8,
    pub best: u8,
}

impl Probe {
    fn of(word: u64) -> Probe {
        let d = Data::unpack(word);
        Probe {
            lo: d.lo,
            hi: d.hi,
            best: d.best,
        }
    }
}

/// The table itself, shareable between threads (and, as a table file, between
/// processes).
///
/// The buckets in use are the first ones, their count doubling when that pays, up to all
/// of them (see [`INITIAL_TT_BYTES`]); how many is kept in the header, so the
/// processes on a table file grow it together. (A table of 64 MB all in use from the
/// start took solvealldeals3 and preferansRu4 together 2.45 s of user CPU against
/// 2.08 s: entries spread over all of it from the first layout on miss the caches
/// more.)
pub(crate) struct Table {
    /// The buckets, and the header with the generation, the count of used slots and
    /// the index mask of the buckets in use.
    buckets: TableMemory,
    /// For each line of the [`SAMPLED_BUCKETS`], the last entries its own strain and
    /// scope evicted from it, newest first: the entries a table of twice the buckets
    /// would still hold there (its two buckets for this one have twice the slots).
    /// Kept by this process only, also for a table file.
    evicted: Box<[[AtomicU64; WAYS]]>,
}

impl Table {
    /// A table of about `bytes` bytes (rounded down to a power of two number of 128-byte
    /// buckets, at least 8 MB), of which it uses a part at first (see
    /// [`INITIAL_TT_BYTES`]).
    pub fn new(bytes: usize) -> Table {
        Table::with_sizes(INITIAL_TT_BYTES, bytes)
    }

    /// A table of `bytes` that uses `initial_bytes` at first (each rounded as in
    /// [`Table::new`]).
    fn with_sizes(initial_bytes: usize, bytes: usize) -> Table {
        let count = bucket_count(bytes);
        Table::with_memory(TableMemory::private(
            count,
            count.min(bucket_count(initial_bytes)),
        ))
    }

    /// The table in the table file at `path`, of about `bytes` bytes (rounded as in
    /// [`Table::new`]), created if missing. Every process opening the file searches
    /// with the same entries, and grows the part in use for all of them.
    pub fn open_file(path: &Path, bytes: usize) -> Result<Table, TableFileError> {
        let count = bucket_count(bytes);
        let in_use = count.min(bucket_count(INITIAL_TT_BYTES));
        Ok(Table::with_memory(TableMemory::file(path, count, in_use)?))
    }

    fn with_memory(buckets: TableMemory) -> Table {
        Table {
            buckets,
            evicted: (0..2 * SAMPLED_BUCKETS)
                .map(|_| Default::default())
                .collect(),
        }
    }

    /// The index mask of the buckets in use.
    fn mask(&self) -> usize {
        self.header().mask.load(Ordering::Acquire)
    }

    fn header(&self) -> &Header {
        self.buckets.header()
    }

    /// Slots of the whole table, one line a bucket (a trump game's).
    pub fn capacity(&self) -> usize {
        self.buckets.len() * WAYS
    }

    /// Bytes of the buckets in use (see [`TableHandle::finish_solve`] and
    /// [`Table::shrink`]).
    pub fn bytes_in_use(&self) -> usize {
        (self.mask() + 1) * std::mem::size_of::<Bucket>()
    }

    #[cfg(test)]
    fn slots_in_use(&self) -> usize {
        (self.mask() + 1) * WAYS
    }

    /// Occupied slots, as of the last finished solve of each thread.
    pub fn used(&self) -> usize {
        self.header().used.load(Relaxed)
    }

    /// Empties every slot. Meant for a table no other thread is using.
    pub fn clear(&self) {
        let in_use = self.mask() + 1;
        for bucket in &self.buckets[..in_use] {
            bucket.empty();
        }
        self.header().used.store(0, Relaxed);
        self.header().generation.store(0, Relaxed);
        self.forget_evicted();
    }

    /// log2 of the buckets in use (under `mask`) per sampled bucket.
    fn sample_shift(mask: usize) -> u32 {
        (mask + 1).trailing_zeros() - SAMPLED_BUCKETS.trailing_zeros()
    }

    /// The remembered evictions of `line` of the sampled `bucket` (a multiple of
    /// `1 << shift`).
    fn evicted_line(&self, bucket: usize, shift: u32, line: usize) -> &[AtomicU64; WAYS] {
        &self.evicted[2 * (bucket >> shift) + line]
    }

    /// Remembers `word`, just evicted from `line` of the sampled `bucket`, dropping the
    /// oldest remembered.
    #[inline(never)]
    fn remember_evicted(&self, bucket: usize, shift: u32, line: usize, word: u64) {
        let evicted = self.evicted_line(bucket, shift, line);
        for i in (1..WAYS).rev() {
            evicted[i].store(evicted[i - 1].load(Relaxed), Relaxed);
        }
        evicted[0].store(word, Relaxed);
    }

    /// Whether an entry matching `want` was evicted from `line` of the sampled `bucket`
    /// and is remembered; it is forgotten (its next store puts it back in the table).
    #[inline(never)]
    fn was_evicted(&self, bucket: usize, shift: u32, line: usize, want: u64) -> bool {
        let evicted = self.evicted_line(bucket, shift, line);
        let slot = evicted.iter().find(|s| {
            let word = s.load(Relaxed);
            word != 0 && (word ^ want) & MATCH_BITS == 0
        });
        slot.map(|s| s.store(0, Relaxed)).is_some()
    }

    fn forget_evicted(&self) {
        for slot in self.evicted.iter().flatten() {
            slot.store(0, Relaxed);
        }
    }

    /// Doubles the buckets in use, if `mask` is still the table's and there are more
    /// buckets. Each entry of bucket `j` stays there or moves to bucket `j + count`, as
    /// the next bit of its mixed identity says (its tag's bit
    /// `log2(count) - INDEX_BITS`): that bucket is emptied first (it may hold entries
    /// from before a [`Table::shrink`]), so every entry fits.
    /// Another thread or process already growing or shrinking the table makes this a
    /// no-op.
    ///
    /// Other threads go on solving meanwhile with the old mask, until their next solve:
    /// they miss the entries moved, and their own stores to those may land where the
    /// new mask never looks (they age out). That costs only time: a slot's tag and
    /// bucket name its position under either mask.
    fn grow(&self, mask: usize) {
        let count = mask + 1;
        if count >= self.buckets.len() {
            return;
        }
        self.while_claimed(|| {
            if self.mask() != mask {
                return;
            }
            let bit = count.trailing_zeros() - INDEX_BITS;
            let moves = |word: u64| word != 0 && (word >> DATA_BITS >> bit) & 1 != 0;
            for (j, bucket) in self.buckets[..count].iter().enumerate() {
                let target = &self.buckets[j + count];
                target.empty();
                for (slot, second) in bucket.slots().iter().zip(bucket.reliance()) {
                    let word = slot.load(Relaxed);
                    if !moves(word) {
                        continue;
                    }
                    let free = target.slots().iter().position(|s| s.load(Relaxed) == 0);
                    if let Some(free) = free {
                        // A reliance word moves with its slot (j and j + count share the
                        // identity bits below the tag, which it names the position by).
                        let second = second.load(Relaxed);
                        if second & RELIANCE_MARK != 0 {
                            target.reliance()[free].store(second, Relaxed);
                        }
                        target.slots()[free].store(word, Relaxed);
                    }
                    slot.store(0, Relaxed);
                }
                // The second line's own entries, of misère and no-trump searches.
                for slot in bucket.reliance() {
                    let word = slot.load(Relaxed);
                    if word & RELIANCE_MARK != 0 || !moves(word) {
                        continue;
                    }
                    let free = target.reliance().iter().find(|s| s.load(Relaxed) == 0);
                    if let Some(free) = free {
                        free.store(word, Relaxed);
                    }
                    slot.store(0, Relaxed);
                }
            }
            self.header().mask.store(2 * count - 1, Ordering::Release);
            // Other buckets are sampled now.
            self.forget_evicted();
        });
    }

    /// Returns the buckets in use to the part a new table uses (see
    /// [`INITIAL_TT_BYTES`]), for an analysis of other cards: a larger part costs time
    /// per node, as fewer probes hit the caches, and that analysis grows it again if
    /// growing pays. The entries of the buckets kept stay; those of the buckets given
    /// up are dropped (a growth empties them before moving entries in). Returns whether
    /// the part in use was larger; another thread or process growing or shrinking the
    /// table at the time makes this a no-op.
    ///
    /// As with a growth, other threads go on solving with the old mask until their next
    /// solve: what they find holds (a slot's tag and bucket name its position under
    /// any mask), and what they store past the part kept is lost.
    pub fn shrink(&self) -> bool {
        let initial = self.buckets.len().min(bucket_count(INITIAL_TT_BYTES));
        let mut shrunk = false;
        self.while_claimed(|| {
            if self.mask() < initial {
                return;
            }
            self.header().mask.store(initial - 1, Ordering::Release);
            // The occupied slots of the part kept: the words of first lines, and the
            // second lines' words that are not reliance words.
            let used = self.buckets[..initial]
                .iter()
                .map(|b| {
                    let slots = b.slots().iter().filter(|s| s.load(Relaxed) != 0);
                    let seconds = b.reliance().iter().filter(|s| {
                        let word = s.load(Relaxed);
                        word != 0 && word & RELIANCE_MARK == 0
                    });
                    slots.count() + seconds.count()
                })
                .sum();
            self.header().used.store(used, Relaxed);
            self.forget_evicted();
            shrunk = true;
        });
        shrunk
    }

    /// Runs `change` (a growth or a shrink of the buckets in use) under the header's
    /// claim, unless another thread or process holds it.
    ///
    /// A claim older than [`STALE_GROWTH_SECS`] is of a process that died changing a
    /// table file, and is taken over: changing it again costs at most the entries that
    /// process had moved (the growth empties the buckets they went to), never a wrong
    /// bound.
    fn while_claimed(&self, change: impl FnOnce()) {
        let claim = &self.header().growing_since;
        let since = claim.load(Ordering::Acquire);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_secs().max(1));
        let stale = since != 0 && now.saturating_sub(since) > STALE_GROWTH_SECS;
        if since != 0 && !stale
            || claim
                .compare_exchange(since, now, Ordering::Acquire, Relaxed)
                .is_err()
        {
            return;
        }
        change();
        claim.store(0, Ordering::Release);
    }
}

/// A claim older than this is of a process that died growing or shrinking the table (a
/// growth reads the buckets in use once, and moves half their entries; a shrink reads
/// the part kept once).
const STALE_GROWTH_SECS: u64 = 60;

/// Added to the declarer's seat relative to the leader (0..3) in the `id` of a class
/// entry (see [`Entry::new`]).
pub(crate) const CLASS: u8 = 3;

/// The name of a table entry: the mixed identity of a position (see [`mix`]), or of
/// its class with bit 63 set. A trick start mixes each of its keys once, for its
/// prefetch, probe and store alike: against mixing at each, 1.9-2.8% fewer
/// instructions on preferansRu5, Ru7, solvealldeals3 and a random trump view. Never 0,
/// as a position has cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry(NonZeroU64);

impl Entry {
    /// The entry of the position with `key` (see [`key`]), `id` the declarer's seat
    /// relative to the leader; plus [`CLASS`], the entry of the class with that key.
    #[inline(always)]
    pub(crate) fn new(key: u64, id: u8) -> Entry {
        let class = id >= CLASS;
        let mixed = mix(key, if class { id - CLASS } else { id }) | u64::from(class) << 63;
        Entry(NonZeroU64::new(mixed).expect("a position has cards"))
    }

    #[inline(always)]
    fn is_class(self) -> bool {
        self.0.get() >> 63 != 0
    }
}

/// The identity of a position (its key, below 9841^4, and the declarer's seat relative
/// to the leader), under 2^55, mixed by a bijection of the 55-bit numbers: odd
/// multipliers and right shifts, so its low bits, which pick the bucket, depend on
/// every bit of the identity.
#[inline]
fn mix(key: u64, declarer_rel: u8) -> u64 {
    let identity = key * 3 + u64::from(declarer_rel);
    let mut x = identity.wrapping_mul(0x9E37_79B9_7F4A_7C15) & IDENTITY_MASK;
    x ^= x >> 28;
    x = x.wrapping_mul(0xD6E8_FEB8_6659_FD93) & IDENTITY_MASK;
    x ^ (x >> 27)
}

/// Buckets in about `bytes` bytes: a power of two, at least [`MIN_BUCKETS`].
fn bucket_count(bytes: usize) -> usize {
    let wanted = (bytes / std::mem::size_of::<Bucket>()).max(MIN_BUCKETS);
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
    /// Whether the strain's entries use both lines of a bucket as slots (misère and
    /// no-trump: searches without class entries; see [`Bucket`]).
    both_lines: bool,
    /// Tag of the cards out of play in the positions being searched.
    scope: u8,
    pub probes: u64,
    pub hits: u64,
    pub stores: u64,
    /// Slots this handle filled since it last added them to the table's count (one
    /// shared atomic add per solve, not per insert: threads would contend for it).
    filled: usize,
    /// Whether the table may still grow (see [`TableHandle::finish_solve`]); while it
    /// may, the sampled buckets remember their evictions.
    may_grow: bool,
    /// [`Table::sample_shift`] of `mask`.
    sample_shift: u32,
    /// `probes` when this growth window began, and the window's misses of entries
    /// that sampled buckets remembered evicting.
    window_start: u64,
    evicted_hits: u64,
}

impl TableHandle {
    pub fn new(table: Arc<Table>) -> TableHandle {
        let mut handle = TableHandle {
            mask: table.mask(),
            table,
            generation: 0,
            strain: 0,
            both_lines: false,
            scope: 0,
            probes: 0,
            hits: 0,
            stores: 0,
            filled: 0,
            may_grow: false,
            sample_shift: 0,
            window_start: 0,
            evicted_hits: 0,
        };
        handle.take_mask();
        handle
    }

    /// Searches on the table's buckets in use as of now, and starts a growth window.
    fn take_mask(&mut self) {
        self.mask = self.table.mask();
        self.may_grow = self.mask + 1 < self.table.buckets.len();
        self.sample_shift = Table::sample_shift(self.mask);
        self.window_start = self.probes;
        self.evicted_hits = 0;
    }

    /// Whether `bucket` is sampled (see [`SAMPLED_BUCKETS`]) and the table may grow.
    #[inline(always)]
    fn sampled(&self, bucket: usize) -> bool {
        self.may_grow && bucket & ((1 << self.sample_shift) - 1) == 0
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    pub fn shared_table(&self) -> Arc<Table> {
        self.table.clone()
    }

    /// Entries the whole table holds for the strain searched: misère and no-trump
    /// entries use both lines of a bucket (see [`Bucket`]).
    pub fn capacity(&self) -> usize {
        self.table.capacity() << usize::from(self.both_lines)
    }

    /// Entries are read and written for `strain` from now on.
    ///
    /// Only trump games' searches store class entries (in misère and no-trump games
    /// they saved under 1% of the nodes on the standard problems, as the small cards
    /// decide more tricks and in no-trump a defender's quick bound on lead relies on
    /// its tail cards, and they cost a second probe per trick start); the other
    /// strains' entries take the line their reliance words would use.
    pub fn set_strain(&mut self, strain: Strain) {
        self.strain = strain_tag(strain);
        self.both_lines = !matches!(strain, Strain::Trump(_));
    }

    /// Whether searches of the strain set store class entries (see
    /// [`TableHandle::set_strain`]): the one place that is decided.
    pub fn class_entries(&self) -> bool {
        !self.both_lines
    }

    /// Entries are stored for positions whose out-of-play cards (in no hand and not on
    /// the table) are `out_of_play`. Entries stored with other cards out of play, or
    /// for another strain, are replaced before any of this scope's: they come from
    /// another analysis (or from earlier tricks of a deal) and are rarely found again.
    /// Kept on an equal footing, they cost the next analysis 7-19% more nodes on the
    /// standard problems (measured with 4-slot buckets). While they last they stay
    /// readable: their bounds hold.
    pub fn set_scope(&mut self, out_of_play: u32) {
        self.scope = scope_tag(out_of_play);
    }

    /// Adds the slots this handle filled to the table's count, and doubles the buckets
    /// in use if that pays; called after each solve.
    ///
    /// Doubling pays when enough probes would then find what they miss now: those of
    /// entries that a table of twice the buckets would still hold. The sampled buckets
    /// remember what they evict, and a window of about [`GROWTH_WINDOW`] of their
    /// probes counts how many missed a remembered entry. Above
    /// [`GROWTH_HITS_PER_MILLE`], the buckets in use double.
    ///
    /// A table filling up is no reason to grow by itself: a long analysis fills any
    /// table with entries of layouts long done. And growing costs time per node: the
    /// more buckets in use, the fewer probes the caches answer. On all layouts of the
    /// 60 random views of `deckhand bench preferans --random 60 --seed 7`, growing at
    /// three quarters full (the rule before) against this rule, both at once on one
    /// core each: misère 52.17 -> 49.83 s of CPU, no-trump 13.24 -> 11.24 s, trump
    /// 26.97 -> 25.70 s, for 7.0%, 3.7% and 2.9% more nodes per layout.
    pub fn finish_solve(&mut self) {
        if self.filled > 0 {
            self.table.header().used.fetch_add(self.filled, Relaxed);
            self.filled = 0;
        }
        let sampled = (self.probes - self.window_start) >> self.sample_shift;
        if self.may_grow && sampled >= GROWTH_WINDOW {
            if 1000 * self.evicted_hits >= GROWTH_HITS_PER_MILLE * sampled {
                self.table.grow(self.mask);
            }
            self.window_start = self.probes;
            self.evicted_hits = 0;
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
            .wrapping_add(1)
            & 7;
        if self.table.mask() != self.mask {
            self.take_mask();
        }
    }

    /// The bucket of an entry among the buckets in use, the line of it that holds its
    /// slot (see [`Bucket`]), and the bits its slot must match: the tag, the class bit
    /// and the strain.
    #[inline(always)]
    fn place(&self, entry: Entry) -> (usize, usize, u64) {
        let m = entry.0.get() & IDENTITY_MASK;
        let want = (m >> INDEX_BITS) << DATA_BITS
            | u64::from(entry.is_class()) << CLASS_SHIFT
            | u64::from(self.strain) << STRAIN_SHIFT;
        let line = usize::from(self.both_lines) & (m >> (IDENTITY_BITS - 1)) as usize;
        (m as usize & self.mask, line, want)
    }

    /// Starts loading the bucket of a position that is about to be probed, and with
    /// `reliance` its reliance words too ([`TableHandle::probe_own`] reads one). On
    /// preferansRu1, Ru4 and solvealldeals3 (50,000 layouts, medians of 7 alternating
    /// runs) the search took 3.31 s with the reliance words loaded ahead against 3.64 s
    /// without.
    #[inline]
    pub fn prefetch(&self, entry: Entry, reliance: bool) {
        #[cfg(target_arch = "x86_64")]
        {
            let (bucket, line, _) = self.place(entry);
            let ptr = self
                .table
                .buckets
                .as_ptr()
                .wrapping_add(bucket)
                .cast::<i8>();
            let line_bytes = std::mem::size_of::<[AtomicU64; WAYS]>();
            // SAFETY: prefetching is a hint; it never faults, even on a bad address.
            #[allow(unused_unsafe)]
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>(ptr.wrapping_add(line * line_bytes));
                if reliance {
                    _mm_prefetch::<_MM_HINT_T0>(ptr.wrapping_add(line_bytes));
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (entry, reliance);
    }

    /// What the table holds for `entry` in the strain searched, if anything.
    #[inline(always)]
    pub fn probe(&mut self, entry: Entry) -> Option<Probe> {
        let (bucket, line, want) = self.place(entry);
        let (word, _) = self.find(bucket, line, want)?;
        Some(Probe::of(word))
    }

    /// The position's own entry, as [`TableHandle::probe`], and the tail cards (among
    /// `tail`, its [`tail_cards`]) that its bounds relied on: those its reliance word
    /// names, or all of them.
    #[inline(always)]
    pub fn probe_own(&mut self, entry: Entry, tail: u32) -> Option<(Probe, u32)> {
        let (bucket, line, want) = self.place(entry);
        debug_assert_eq!(line, 0, "only trump games have reliance words");
        let (word, way) = self.find(bucket, line, want)?;
        let d = Data::unpack(word);
        let reliance = self.table.buckets[bucket].reliance()[way].load(Relaxed);
        let relied = reliance_code(reliance, want & !0 << DATA_BITS, self.strain, d.lo, d.hi)
            .map_or(tail, |code| relied_cards(code, tail));
        Some((Probe::of(word), relied))
    }

    /// The word and way of the slot in `line` of `bucket` whose tag, class bit and
    /// strain are `want`'s (an empty slot, the zero word, has no strain; a reliance word
    /// has [`RELIANCE_MARK`], where `want` of a line-1 entry has a clear class bit). All
    /// eight are read and the match is kept by a conditional move: where it sits is
    /// data, and a branch on it mispredicts (a plain `if` compiled to one once the
    /// search probed two entries per position).
    #[inline(always)]
    fn find(&mut self, bucket: usize, line: usize, want: u64) -> Option<(u64, usize)> {
        self.probes += 1;
        let (mut found, mut way) = (0, 0);
        for (i, slot) in self.table.buckets[bucket].lines[line].iter().enumerate() {
            let word = slot.load(Relaxed);
            let matches = (word ^ want) & MATCH_BITS == 0;
            found = select_unpredictable(matches, word, found);
            way = select_unpredictable(matches, i, way);
        }
        if found == 0 {
            if self.sampled(bucket)
                && self
                    .table
                    .was_evicted(bucket, self.sample_shift, line, want)
            {
                self.evicted_hits += 1;
            }
            return None;
        }
        self.hits += 1;
        Some((found, way))
    }

    /// Whether an entry is of the strain and scope searched (and in misère and no-trump,
    /// not a trump game's class entry or reliance word): one this search may find again.
    #[inline(always)]
    fn own(&self, d: Data) -> bool {
        d.strain == self.strain && !(d.class && self.both_lines) && d.scope == self.scope
    }

    /// Narrows the stored bounds (or inserts a new entry) for this position (or class).
    /// `relied`: for a position's own entry in a class search, the [`relied_code`] of
    /// the tail cards the bounds relied on, kept in its reliance word (merged with the
    /// entry's when both entries' bounds remain).
    #[inline(always)]
    pub fn store(
        &mut self,
        entry: Entry,
        tricks: u8,
        lo: u8,
        hi: u8,
        best: u8,
        relied: Option<u32>,
    ) {
        self.stores += 1;
        let (index, line, want) = self.place(entry);
        let tag_bits = want & !0 << DATA_BITS;
        let generation = self.generation;
        let bucket = &self.table.buckets[index];
        let (slots, reliance) = (&bucket.lines[line], bucket.reliance());
        // As in `probe`, the slot of this entry is found without a branch on where it
        // sits; so is the victim, should there be none.
        let (mut matched, mut matched_word) = (WAYS, 0);
        let mut victim = 0;
        let mut victim_score = i32::MAX;
        for (i, slot) in slots.iter().enumerate() {
            let word = slot.load(Relaxed);
            let matches = (word ^ want) & MATCH_BITS == 0;
            matched = select_unpredictable(matches, i, matched);
            matched_word = select_unpredictable(matches, word, matched_word);
            // Prefer empty slots, then other scopes' entries (and in misère and
            // no-trump, trump games' class entries and reliance words), then stale
            // generations, then the shallowest entry.
            let d = Data::unpack(word);
            let age = i32::from(generation.wrapping_sub(d.generation) & 7);
            let score = if word == 0 {
                -1000
            } else if !self.own(d) {
                -500 + i32::from(d.tricks)
            } else {
                i32::from(d.tricks) * 2 - age * 4
            };
            if score < victim_score {
                victim_score = score;
                victim = i;
            }
        }
        debug_assert!(
            relied.is_none() || line == 0,
            "reliance words pair with line 0"
        );
        if let Some(slot) = slots.get(matched) {
            // The word read above: another thread may have put another position there
            // since, and its bounds must not be merged under this tag.
            let d = Data::unpack(matched_word);
            let merged = Data {
                lo: d.lo.max(lo),
                hi: d.hi.min(hi),
                best: if best != NO_MOVE { best } else { d.best },
                generation,
                scope: self.scope,
                ..d
            };
            if let Some(code) = relied {
                let old = reliance[matched].load(Relaxed);
                let old_code =
                    reliance_code(old, tag_bits, self.strain, d.lo, d.hi).unwrap_or(RELIED_ALL);
                // The merged bounds rely on what each bound kept relied on.
                let merged_code = if lo >= d.lo && hi <= d.hi {
                    code
                } else if d.lo >= lo && d.hi <= hi {
                    old_code
                } else {
                    old_code | code
                };
                reliance[matched].store(
                    reliance_word(tag_bits, self.strain, merged.lo, merged.hi, merged_code),
                    Relaxed,
                );
            }
            slot.store(tag_bits | merged.pack(), Relaxed);
            return;
        }
        let slot = &slots[victim];
        let evicted = slot.load(Relaxed);
        if evicted == 0 {
            self.filled += 1;
        } else if self.sampled(index) && self.own(Data::unpack(evicted)) {
            self.table
                .remember_evicted(index, self.sample_shift, line, evicted);
        }
        if let Some(code) = relied {
            reliance[victim].store(reliance_word(tag_bits, self.strain, lo, hi, code), Relaxed);
        }
        let data = Data {
            lo,
            hi,
            tricks,
            class: entry.is_class(),
            best,
            generation,
            strain: self.strain,
            scope: self.scope,
        };
        slot.store(tag_bits | data.pack(), Relaxed);
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

/// A 1-bit tag of a set of out-of-play cards (a hash: two sets may share a tag, which
/// only weakens the replacement preference, never the bounds).
fn scope_tag(out_of_play: u32) -> u8 {
    (out_of_play.wrapping_mul(0x9E37_79B1) >> 31) as u8
}

/// The identity of a trick-boundary position: per suit, the rank of the sequence of
/// holders of its live cards (leader 0, next 1, the one after 2), from the highest,
/// among all sequences of at most 8 cards (9,841); four suits in base 9,841.
#[inline]
pub(crate) fn key(rel: [u32; 3]) -> u64 {
    let live = rel[0] | rel[1] | rel[2];
    let mut key = 0u64;
    for s in 0..4 {
        key = key * 9841 + suit_rank(live, rel[1], rel[2], s);
    }
    key
}

/// A position's [`key`] and the key of its class (see the module's documentation): the
/// key of its member where the first defender (in `rel`'s order) holds the highest of
/// each suit's tail cards. `rel` are the hands from the leader on, the declarer's at
/// `declarer_rel`, and `tail` their [`tail_cards`] (the search has them at hand).
#[inline]
pub(crate) fn keys(rel: [u32; 3], declarer_rel: usize, tail: u32) -> (u64, u64) {
    let live = rel[0] | rel[1] | rel[2];
    let first = usize::from(declarer_rel == 0);
    let mut first_tail = 0;
    for s in 0..4 {
        let count = suit_len(rel[first] & tail, s) as usize;
        let highest = HIGHEST[usize::from(suit_byte(tail, s))][count];
        first_tail |= u32::from(highest) << (8 * s);
    }
    // The member differs from `rel` only in the defenders' tail cards, and a suit's
    // rank adds the ternary digits of the hand after the leader once and of the next
    // hand twice. When a defender leads, its hand is not in the sum; when the declarer
    // leads, the two defenders' digits sum to their union's (unchanged) plus the
    // second's. Either way the class key is the key plus the second defender's change,
    // counted twice when it sits two after the leader: three table reads a suit instead
    // of six (-1.7% instructions on the slowest random view, -1.9% on preferansRu1).
    let second = 3 - declarer_rel - first;
    let weight = if declarer_rel == 1 { 2 } else { 1 };
    let member = rel[second] & !tail | tail & !first_tail;
    let (mut key, mut change) = (0u64, 0u64);
    for s in 0..4 {
        let base = usize::from(suit_byte(live, s)) << 8;
        let digits = |hand: u32| u64::from(TERNARY[base | usize::from(suit_byte(hand, s))]);
        // `suit_rank`'s sum written out: calling it, the second defender's digits were
        // read twice (+1.5% instructions on preferansRu1).
        key = key * 9841
            + u64::from(SEQUENCE_START[usize::from(suit_byte(live, s))])
            + digits(rel[1])
            + 2 * digits(rel[2]);
        // A suit's change may be negative: wrapping, the sum is the class key.
        change = change
            .wrapping_mul(9841)
            .wrapping_add(digits(member).wrapping_sub(digits(rel[second])));
    }
    (key, key.wrapping_add(change.wrapping_mul(weight)))
}

/// The tail cards of a position: per suit, the cards of `live` below the declarer's
/// lowest, or all of them when it holds none.
#[inline]
pub(crate) fn tail_cards(declarer: u32, live: u32) -> u32 {
    // Per suit the declarer's cards and all above them, four suits at once. Against a
    // table read a suit: 2.1-3.1% fewer instructions on a random trump view,
    // preferansRu1 and solvealldeals3 (cachegrind); about 2% less CPU on the two
    // problems and no change on the view (medians of 5 paired runs, 50,000 layouts).
    let up_to_lowest = fill_up_suits(declarer, u32::MAX);
    live & !up_to_lowest
}

/// The cards of suit `s` in `cards`, as a byte whose bit 0 is the suit's highest card.
#[inline(always)]
fn suit_byte(cards: u32, s: u32) -> u8 {
    (cards >> (8 * s)) as u8
}

/// The rank of suit `s`'s holder sequence (see [`key`]): `live` the cards in play, `h1`
/// and `h2` those of the hands after the leader.
#[inline(always)]
fn suit_rank(live: u32, h1: u32, h2: u32, s: u32) -> u64 {
    let base = usize::from(suit_byte(live, s)) << 8;
    u64::from(SEQUENCE_START[usize::from(suit_byte(live, s))])
        + u64::from(TERNARY[base | usize::from(suit_byte(h1, s))])
        + 2 * u64::from(TERNARY[base | usize::from(suit_byte(h2, s))])
}

static TERNARY: [u16; 65536] = suit_pair_table!(u16, ternary_digits);

/// Per suit's byte of cards and count `k`: its `k` highest cards (lowest bits).
static HIGHEST: [[u8; 9]; 256] = {
    let mut t = [[0u8; 9]; 256];
    let mut cards = 0;
    while cards < 256 {
        let (mut k, mut taken, mut b) = (0, 0u8, 0);
        while b < 8 {
            if cards & (1 << b) != 0 {
                k += 1;
                taken |= 1 << b;
                t[cards][k] = taken;
            }
            b += 1;
        }
        cards += 1;
    }
    t
};

/// Per live mask: the rank of the first holder sequence of its length, (3^k - 1) / 2.
static SEQUENCE_START: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut live = 0;
    while live < 256 {
        t[live] = ((3u32.pow((live as u32).count_ones()) - 1) / 2) as u16;
        live += 1;
    }
    t
};

/// The sum of 3^i over the i-th live cards (from the highest) held in `hand`.
const fn ternary_digits(live: u32, hand: u32) -> u16 {
    let mut out = 0u32;
    let mut power = 1u32;
    let mut b = 0;
    while b < 8 {
        if live & (1 << b) != 0 {
            if hand & (1 << b) != 0 {
                out += power;
            }
            power *= 3;
        }
        b += 1;
    }
    out as u16
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::table_memory::TABLE_FORMAT;

    #[test]
    fn new_table_is_empty_and_stores() {
        // Smaller than the least table: rounded up to it.
        let mut t = TableHandle::new(Arc::new(Table::new(1 << 20)));
        assert!(t.table().buckets.iter().all(|b| b
            .lines
            .iter()
            .flatten()
            .all(|s| s.load(Relaxed) == 0)));
        assert_eq!(t.table().capacity(), MIN_BUCKETS * WAYS);
        assert_eq!(t.table().slots_in_use(), MIN_BUCKETS * WAYS);
        let key = key([0b111, 0b111 << 8, 0b111 << 16]);
        assert!(t.probe(Entry::new(key, 1)).is_none());
        t.store(Entry::new(key, 1), 3, 1, 2, 5, None);
        t.finish_solve();
        let p = t.probe(Entry::new(key, 1)).unwrap();
        assert_eq!((p.lo, p.hi, p.best), (1, 2, 5));
        assert!(t.probe(Entry::new(key, 2)).is_none());
        assert_eq!(t.table().used(), 1);
    }

    #[test]
    fn a_class_entry_and_a_position_entry_of_one_key_are_apart() {
        let mut t = TableHandle::new(Arc::new(Table::new(1 << 20)));
        let key = key([0b111, 0b111 << 8, 0b111 << 16]);
        t.store(Entry::new(key, 1), 3, 1, 2, 5, None);
        assert!(t.probe(Entry::new(key, 1 + CLASS)).is_none());
        t.store(Entry::new(key, 1 + CLASS), 3, 0, 1, 6, None);
        let own = t.probe(Entry::new(key, 1)).unwrap();
        let class = t.probe(Entry::new(key, 1 + CLASS)).unwrap();
        assert_eq!((own.lo, own.hi, own.best), (1, 2, 5));
        assert_eq!((class.lo, class.hi, class.best), (0, 1, 6));
    }

    #[test]
    fn entries_hold_for_their_strain_only() {
        let table = Arc::new(Table::new(1 << 20));
        let mut spades = TableHandle::new(table.clone());
        spades.set_strain(Strain::Trump(crate::Suit::Spades));
        let mut misere = TableHandle::new(table);
        misere.set_strain(Strain::Misere);
        let key = key([0b111, 0b111 << 8, 0b111 << 16]);
        spades.store(Entry::new(key, 1), 3, 2, 2, NO_MOVE, None);
        assert!(misere.probe(Entry::new(key, 1)).is_none());
        misere.store(Entry::new(key, 1), 3, 0, 0, NO_MOVE, None);
        assert_eq!(spades.probe(Entry::new(key, 1)).map(|p| p.lo), Some(2));
        assert_eq!(misere.probe(Entry::new(key, 1)).map(|p| p.hi), Some(0));
    }

    /// Distinct position keys (three disjoint random hands) from `seed`.
    fn random_keys(seed: u64) -> impl Iterator<Item = u64> {
        let mut seen = std::collections::HashSet::new();
        let mut x = seed;
        std::iter::from_fn(move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (a, b) = ((x >> 32) as u32, x as u32);
            Some(key([a & b, a & !b, !a & b]))
        })
        .filter(move |&k| seen.insert(k))
    }

    /// An own entry's reliance word follows its bounds: the cards the bounds kept rely
    /// on, and every tail card once the word is not the slot's.
    #[test]
    fn reliance_words_follow_the_bounds_they_were_stored_with() {
        let mut t = TableHandle::new(Arc::new(Table::new(1 << 20)));
        t.set_strain(Strain::Trump(crate::Suit::Spades));
        let tail = 0b1011_0000 | 0b0110 << 8;
        let [a, b, c] = [1 << 4, 1 << 5, 1 << 10];
        let code = |cards| Some(relied_code(cards, tail));
        let key = random_keys(9).next().unwrap();
        let relied = |t: &mut TableHandle| {
            let (p, cards) = t.probe_own(Entry::new(key, 1), tail).unwrap();
            ((p.lo, p.hi), cards)
        };
        t.store(Entry::new(key, 1), 5, 2, 4, NO_MOVE, code(a));
        assert_eq!(relied(&mut t), ((2, 4), a));
        // New bounds inside the old: theirs alone.
        t.store(Entry::new(key, 1), 5, 3, 4, NO_MOVE, code(b));
        assert_eq!(relied(&mut t), ((3, 4), b));
        // Old bounds inside the new: the old ones'.
        t.store(Entry::new(key, 1), 5, 0, 9, NO_MOVE, code(c));
        assert_eq!(relied(&mut t), ((3, 4), b));
        // One bound from each store: both.
        t.store(Entry::new(key, 1), 5, 0, 3, NO_MOVE, code(c));
        assert_eq!(relied(&mut t), ((3, 3), b | c));
        // The class entry of the same key has no say in it.
        t.store(Entry::new(key, 1 + CLASS), 5, 3, 3, NO_MOVE, None);
        assert_eq!(relied(&mut t), ((3, 3), b | c));

        // Bounds narrowed without a reliance word (as a search without class entries
        // stores them): the old word is not theirs, so every tail card counts.
        let other = random_keys(10).next().unwrap();
        t.store(Entry::new(other, 1), 5, 2, 4, NO_MOVE, code(a));
        t.store(Entry::new(other, 1), 5, 3, 4, NO_MOVE, None);
        assert_eq!(t.probe_own(Entry::new(other, 1), tail).unwrap().1, tail);
        // And a store merging with such an entry keeps every tail card.
        t.store(Entry::new(other, 1), 5, 0, 3, NO_MOVE, code(c));
        assert_eq!(t.probe_own(Entry::new(other, 1), tail).unwrap().1, tail);
    }

    #[test]
    fn misere_and_no_trump_entries_fill_both_lines_of_a_bucket() {
        let mut t = TableHandle::new(Arc::new(Table::new(0)));
        t.set_strain(Strain::Misere);
        assert_eq!(t.capacity(), 2 * t.table().capacity());
        // Keys of one bucket: WAYS + 1 whose entries go to its first line, WAYS to its
        // second.
        let mut lines: [Vec<u64>; 2] = Default::default();
        let first_bucket = t.place(Entry::new(random_keys(4).next().unwrap(), 0)).0;
        for k in random_keys(4) {
            let (bucket, line, _) = t.place(Entry::new(k, 0));
            if bucket == first_bucket && lines[line].len() < WAYS + 1 - line {
                lines[line].push(k);
            }
            if lines[0].len() == WAYS + 1 && lines[1].len() == WAYS {
                break;
            }
        }
        let bounds = |k: u64| ((k % 4) as u8, 4 + (k % 5) as u8);
        for &k in lines[0][..WAYS].iter().chain(&lines[1]) {
            t.store(Entry::new(k, 0), 9, bounds(k).0, bounds(k).1, NO_MOVE, None);
        }
        let held = |t: &mut TableHandle, keys: &[u64]| {
            keys.iter()
                .filter(|&&k| {
                    t.probe(Entry::new(k, 0))
                        .map(|p| assert_eq!((p.lo, p.hi), bounds(k), "key {k}"))
                        .is_some()
                })
                .count()
        };
        assert_eq!(held(&mut t, &lines[0]), WAYS);
        assert_eq!(held(&mut t, &lines[1]), WAYS);
        // A ninth entry of the first line replaces one of that line only.
        let ninth = lines[0][WAYS];
        t.store(Entry::new(ninth, 0), 9, 1, 2, NO_MOVE, None);
        assert!(t.probe(Entry::new(ninth, 0)).is_some());
        assert_eq!(held(&mut t, &lines[0][..WAYS]), WAYS - 1);
        assert_eq!(held(&mut t, &lines[1]), WAYS);
    }

    #[test]
    fn strains_sharing_a_table_never_read_each_others_words() {
        // A trump game's entries with reliance words and misère's entries of the same
        // positions, far more than the least table holds, so they overwrite each other
        // in every way: whatever is found is its own strain's.
        let table = Arc::new(Table::new(0));
        let mut trump = TableHandle::new(table.clone());
        trump.set_strain(Strain::Trump(crate::Suit::Hearts));
        let mut misere = TableHandle::new(table);
        misere.set_strain(Strain::Misere);
        let tail = 0x00f0_30e0;
        let trump_bounds = |k: u64| ((k % 4) as u8, 4 + (k % 3) as u8);
        let misere_bounds = |k: u64| (1 + (k % 3) as u8, 6 + (k % 4) as u8);
        let code = |k: u64| (k >> 3) as u32 & RELIED_ALL;
        let keys: Vec<u64> = random_keys(12).take(3 * MIN_BUCKETS * WAYS).collect();
        for &k in &keys {
            let (lo, hi) = trump_bounds(k);
            trump.store(Entry::new(k, 1), 7, lo, hi, NO_MOVE, Some(code(k)));
            let (lo, hi) = misere_bounds(k);
            misere.store(Entry::new(k, 1), 7, lo, hi, NO_MOVE, None);
        }
        let (mut misere_found, mut trump_found, mut relied_kept) = (0, 0, 0);
        for &k in &keys {
            if let Some(p) = misere.probe(Entry::new(k, 1)) {
                assert_eq!((p.lo, p.hi), misere_bounds(k), "misère, key {k}");
                misere_found += 1;
            }
            if let Some((p, cards)) = trump.probe_own(Entry::new(k, 1), tail) {
                assert_eq!((p.lo, p.hi), trump_bounds(k), "trump, key {k}");
                let stored = relied_cards(code(k), tail);
                assert!(cards == stored || cards == tail, "key {k}: {cards:x}");
                trump_found += 1;
                relied_kept += usize::from(cards == stored && stored != tail);
            }
        }
        // Both strains kept many entries, and many trump entries their reliance word.
        let slots = MIN_BUCKETS * WAYS;
        assert!(misere_found > slots / 8, "{misere_found}");
        assert!(trump_found > slots / 4, "{trump_found}");
        assert!(relied_kept > slots / 4, "{relied_kept}");
    }

    proptest::proptest! {
        /// A reliance word gives its code back, never matches the slot of a misère or
        /// no-trump entry, and such a slot never passes for a reliance word, whatever
        /// their tags and bounds: so the two share a bucket's second line.
        #[test]
        fn reliance_words_and_second_line_slots_are_told_apart(
            tag in 0u64..1 << (64 - DATA_BITS),
            (lo, hi, code) in (0u8..16, 0u8..16, 0u32..=RELIED_ALL),
            (tricks, best, generation, scope) in (2u8..=10, 0u8..32, 0u8..8, 0u8..2),
            suit in 0usize..4,
            no_trump in proptest::bool::ANY,
        ) {
            let tag_bits = tag << DATA_BITS;
            let trump = strain_tag(Strain::Trump(crate::Suit::ALL[suit]));
            let other = strain_tag(if no_trump { Strain::NoTrump } else { Strain::Misere });
            let word = reliance_word(tag_bits, trump, lo, hi, code);
            proptest::prop_assert_eq!(reliance_code(word, tag_bits, trump, lo, hi), Some(code));
            let want = tag_bits | u64::from(other) << STRAIN_SHIFT;
            proptest::prop_assert!((word ^ want) & MATCH_BITS != 0);
            let data = Data { lo, hi, tricks, class: false, best, strain: other, generation, scope };
            let slot = tag_bits | data.pack();
            proptest::prop_assert_eq!(reliance_code(slot, tag_bits, trump, lo, hi), None);
        }
    }

    proptest::proptest! {
        /// A relied code names the same cards back among the same tail cards, and the
        /// cards at the same places among any other tail cards of as many per suit;
        /// past [`RELIED_BITS`] tail cards every one counts as relied on.
        #[test]
        fn relied_codes_name_cards_by_their_place_among_the_tail_cards(
            tail: u32,
            relied: u32,
            other_tail: u32,
        ) {
            let relied = relied & tail;
            let code = relied_code(relied, tail);
            let back = relied_cards(code, tail);
            let places = |cards: u32, tail: u32| -> Vec<bool> {
                (0..32).filter(|&c| tail & (1 << c) != 0).map(|c| cards & (1 << c) != 0).collect()
            };
            proptest::prop_assert_eq!(back & !tail, 0);
            if tail.count_ones() <= RELIED_BITS {
                proptest::prop_assert_eq!(back, relied);
            } else {
                let kept: Vec<bool> = places(back, tail);
                let want: Vec<bool> = places(relied, tail)
                    .iter()
                    .enumerate()
                    .map(|(i, &r)| r || i >= RELIED_BITS as usize)
                    .collect();
                proptest::prop_assert_eq!(kept, want);
            }
            // The same places among other tail cards.
            let other = relied_cards(code, other_tail);
            let n = tail.count_ones().min(other_tail.count_ones()).min(RELIED_BITS) as usize;
            proptest::prop_assert_eq!(&places(other, other_tail)[..n], &places(back, tail)[..n]);
        }
    }

    /// `n` keys whose entries (declarer seat 0) share one bucket of any table.
    fn keys_in_one_bucket(n: usize) -> Vec<u64> {
        let mut buckets: std::collections::HashMap<usize, Vec<u64>> = Default::default();
        for k in random_keys(7) {
            let keys = buckets.entry(mix(k, 0) as usize % MIN_BUCKETS).or_default();
            keys.push(k);
            if keys.len() == n {
                return keys.clone();
            }
        }
        unreachable!()
    }

    #[test]
    fn each_slot_of_a_full_bucket_answers_for_its_own_position() {
        let mut t = TableHandle::new(Arc::new(Table::new(1 << 20)));
        t.set_strain(Strain::Trump(crate::Suit::Spades));
        let all = keys_in_one_bucket(WAYS + 1);
        let (keys, absent) = all.split_at(WAYS);
        let bounds = |i: usize| (i as u8 % 5, 5 + i as u8 % 5);
        for (i, &k) in keys.iter().enumerate() {
            let (lo, hi) = bounds(i);
            t.store(Entry::new(k, 0), 9, lo, hi, i as u8, None);
        }
        // A second store narrows the entry of its own position, wherever it sits.
        for (i, &k) in keys.iter().enumerate() {
            t.store(Entry::new(k, 0), 9, bounds(i).0 + 1, 9, NO_MOVE, None);
        }
        for (i, &k) in keys.iter().enumerate() {
            let p = t.probe(Entry::new(k, 0)).expect("every entry is held");
            let (lo, hi) = bounds(i);
            assert_eq!((p.lo, p.hi, p.best), (lo + 1, hi, i as u8), "position {i}");
        }
        assert!(t.probe(Entry::new(absent[0], 0)).is_none());
    }

    #[test]
    fn another_scope_is_replaced_first() {
        // One bucket, shared by two analyses with different cards out of play (so
        // different scopes).
        let table = Arc::new(Table::new(0));
        let (mut first, mut second) = (TableHandle::new(table.clone()), TableHandle::new(table));
        first.set_scope(0b11);
        let other = (0..)
            .map(|c| 0b11u32 << c)
            .find(|&o| scope_tag(o) != first.scope);
        second.set_scope(other.unwrap());
        let keys = keys_in_one_bucket(WAYS + 2);
        // The first analysis leaves deep entries in all but one slot; the second
        // stores a shallow one.
        for &k in &keys[..WAYS - 1] {
            first.store(Entry::new(k, 0), 9, 4, 4, NO_MOVE, None);
        }
        second.store(Entry::new(keys[WAYS - 1], 0), 3, 1, 1, NO_MOVE, None);
        // The bucket is full: the second analysis's next entries must replace the
        // first's, deep as they are, not its own shallow one.
        second.store(Entry::new(keys[WAYS], 0), 4, 2, 2, NO_MOVE, None);
        second.store(Entry::new(keys[WAYS + 1], 0), 4, 2, 2, NO_MOVE, None);
        for &k in &keys[WAYS - 1..] {
            assert!(second.probe(Entry::new(k, 0)).is_some());
        }
        let kept = keys[..WAYS - 1]
            .iter()
            .filter(|&&k| first.probe(Entry::new(k, 0)).is_some());
        assert_eq!(kept.count(), WAYS - 3);
    }

    #[test]
    fn growing_keeps_every_entry() {
        // A trump game's entries, in the buckets' first lines, and misère's, in both.
        for strain in [Strain::Trump(crate::Suit::Spades), Strain::Misere] {
            grows_keeping_every_entry(strain);
        }
    }

    /// The least table in use at first, of four times as many buckets.
    fn table_of_four_parts() -> Arc<Table> {
        let bucket = std::mem::size_of::<Bucket>();
        Arc::new(Table::with_sizes(0, 4 * MIN_BUCKETS * bucket))
    }

    /// Bounds that are a function of the key, so a hit shows whose entry it is.
    fn key_bounds(k: u64) -> (u8, u8) {
        ((k % 5) as u8, (k % 5 + k % 3) as u8)
    }

    fn grows_keeping_every_entry(strain: Strain) {
        let table = table_of_four_parts();
        let mut t = TableHandle::new(table.clone());
        t.set_strain(strain);
        let keys: Vec<u64> = random_keys(1).take(2 * MIN_BUCKETS * WAYS).collect();
        let mut in_use = vec![table.slots_in_use()];
        for (i, batch) in keys.chunks(MIN_BUCKETS * WAYS / 2).enumerate() {
            t.next_generation();
            for &k in batch {
                t.store(Entry::new(k, 0), 5, 2, 3, NO_MOVE, None);
            }
            t.finish_solve();
            let held = |t: &mut TableHandle| -> Vec<bool> {
                keys.iter()
                    .map(|&k| t.probe(Entry::new(k, 0)).is_some())
                    .collect()
            };
            let before = held(&mut t);
            table.grow(t.mask);
            // The handle takes the new mask at its next solve start.
            t.next_generation();
            in_use.push(table.slots_in_use());
            assert!(held(&mut t) == before, "lost growing after batch {i}");
        }
        // Doubling, never past the whole table.
        let slots = MIN_BUCKETS * WAYS;
        assert_eq!(in_use, [slots, 2 * slots, 4 * slots, 4 * slots, 4 * slots]);
        assert!(table.used() <= table.capacity());
    }

    #[test]
    fn shrinking_keeps_the_first_part_and_growing_again_keeps_every_entry() {
        for strain in [Strain::Trump(crate::Suit::Spades), Strain::Misere] {
            shrinks_and_grows_again(strain);
        }
    }

    /// A table grown to four times its first part and filled is shrunk: the entries of
    /// the first part stay, the others are gone, and what is stored next survives the
    /// growths that take the given-up buckets back, stale entries and all.
    fn shrinks_and_grows_again(strain: Strain) {
        let bucket = std::mem::size_of::<Bucket>();
        let table = table_of_four_parts();
        let mut t = TableHandle::new(table.clone());
        t.set_strain(strain);
        let store = |t: &mut TableHandle, keys: &[u64]| {
            t.next_generation();
            for &k in keys {
                let (lo, hi) = key_bounds(k);
                t.store(Entry::new(k, 0), 5, lo, hi, NO_MOVE, None);
            }
            t.finish_solve();
        };
        let held = |t: &mut TableHandle, keys: &[u64]| -> Vec<u64> {
            let found = keys.iter().filter(|&&k| match t.probe(Entry::new(k, 0)) {
                Some(p) => {
                    assert_eq!((p.lo, p.hi), key_bounds(k), "key {k}");
                    true
                }
                None => false,
            });
            found.copied().collect()
        };
        assert!(!table.shrink(), "nothing to give up yet");
        table.grow(t.mask);
        table.grow(2 * t.mask + 1);
        // Stale entries past the first part fill most buckets there.
        let old: Vec<u64> = random_keys(3).take(3 * MIN_BUCKETS * WAYS).collect();
        store(&mut t, &old);
        let old_held = held(&mut t, &old);
        let (mask, used) = (t.mask, table.used());
        assert_eq!(mask + 1, 4 * MIN_BUCKETS);
        assert_eq!(table.bytes_in_use(), 4 * MIN_BUCKETS * bucket);
        assert!(table.shrink());
        assert_eq!(table.slots_in_use(), MIN_BUCKETS * WAYS);
        assert_eq!(table.bytes_in_use(), MIN_BUCKETS * bucket);
        let first_part: Vec<u64> = old_held
            .iter()
            .copied()
            .filter(|&k| t.place(Entry::new(k, 0)).0 < MIN_BUCKETS)
            .collect();
        t.next_generation();
        let kept = held(&mut t, &old);
        assert!(
            kept == first_part,
            "{} of {} kept",
            kept.len(),
            first_part.len()
        );
        assert!(table.used() >= first_part.len() && table.used() < used / 3);
        // A new analysis fills the first part, and the table grows twice.
        let new: Vec<u64> = random_keys(4).take(MIN_BUCKETS * WAYS / 2).collect();
        store(&mut t, &new);
        let new_held = held(&mut t, &new);
        assert!(new_held.len() > new.len() * 9 / 10);
        for _ in 0..2 {
            table.grow(t.mask);
            t.next_generation();
            let kept = held(&mut t, &new);
            assert!(
                kept == new_held,
                "{} of {} kept",
                kept.len(),
                new_held.len()
            );
        }
        assert_eq!(table.slots_in_use(), 4 * MIN_BUCKETS * WAYS);
    }

    /// The table grows when its sampled buckets show that twice the buckets would hold
    /// entries the search keeps probing for: here sixteen positions in turn in one
    /// bucket of eight slots. Probed elsewhere, or never again, evicted entries are no
    /// reason to grow.
    #[test]
    fn grows_when_evicted_entries_are_probed_again() {
        for strain in [Strain::Trump(crate::Suit::Spades), Strain::Misere] {
            // Bucket 0 is sampled; bucket 1 is not.
            assert!(grows_probing_again(strain, 0, true));
            assert!(!grows_probing_again(strain, 1, true));
            assert!(!grows_probing_again(strain, 0, false));
        }
    }

    /// Filling a table is no reason to grow: here every entry is probed once, stored,
    /// and never probed again.
    #[test]
    fn filling_up_is_no_reason_to_grow() {
        let bucket = std::mem::size_of::<Bucket>();
        let table = Arc::new(Table::with_sizes(0, 2 * MIN_BUCKETS * bucket));
        let mut t = TableHandle::new(table.clone());
        t.set_strain(Strain::Trump(crate::Suit::Spades));
        let keys: Vec<u64> = random_keys(5).take(3 * MIN_BUCKETS * WAYS).collect();
        for batch in keys.chunks(4096) {
            t.next_generation();
            for &k in batch {
                assert!(t.probe(Entry::new(k, 0)).is_none());
                t.store(Entry::new(k, 0), 5, 2, 3, NO_MOVE, None);
            }
            t.finish_solve();
        }
        assert!(4 * table.used() >= 3 * table.slots_in_use(), "it filled up");
        assert_eq!(table.slots_in_use(), MIN_BUCKETS * WAYS);
    }

    /// Whether a table grows as a search stores sixteen entries of one line of `bucket`
    /// in turn, over and over, probing each `again` before it stores it, or else probing
    /// entries it never stores; and probes an absent entry elsewhere, so that `bucket`
    /// gets as many probes as any sampled bucket would.
    fn grows_probing_again(strain: Strain, bucket: usize, again: bool) -> bool {
        let table = Arc::new(Table::with_sizes(
            0,
            2 * MIN_BUCKETS * std::mem::size_of::<Bucket>(),
        ));
        let mut t = TableHandle::new(table.clone());
        t.set_strain(strain);
        // Misère puts some of a bucket's entries in its second line: take the first's.
        let keys: Vec<u64> = (1u64..)
            .filter(|&k| t.place(Entry::new(k, 0)).0 == bucket)
            .filter(|&k| t.place(Entry::new(k, 0)).1 == 0)
            .take(3 * WAYS)
            .collect();
        let (cycled, never_stored) = keys.split_at(2 * WAYS);
        let elsewhere = (1u64..)
            .find(|&k| !t.sampled(t.place(Entry::new(k, 0)).0))
            .unwrap();
        let buckets_per_sample: usize = 1 << Table::sample_shift(t.mask);
        // Until a window's worth of probes has been judged.
        let window = GROWTH_WINDOW * buckets_per_sample as u64;
        while t.probes <= window {
            t.next_generation();
            for _ in 0..(buckets_per_sample - 1) * cycled.len() {
                assert!(t.probe(Entry::new(elsewhere, 0)).is_none());
            }
            for (i, &k) in cycled.iter().enumerate() {
                let probed = if again { k } else { never_stored[i % WAYS] };
                if t.probe(Entry::new(probed, 0)).is_none() {
                    t.store(Entry::new(k, 0), 5, 2, 3, NO_MOVE, None);
                }
            }
            t.finish_solve();
        }
        table.slots_in_use() > MIN_BUCKETS * WAYS
    }

    #[test]
    fn growing_and_shrinking_under_two_threads_never_mixes_up_entries() {
        for strain in [Strain::Trump(crate::Suit::Spades), Strain::NoTrump] {
            growing_and_shrinking_under_two_threads(strain);
        }
    }

    fn growing_and_shrinking_under_two_threads(strain: Strain) {
        let table = table_of_four_parts();
        std::thread::scope(|scope| {
            for seed in 1..=2u64 {
                let table = table.clone();
                scope.spawn(move || {
                    let mut t = TableHandle::new(table);
                    t.set_strain(strain);
                    let mut x = seed;
                    for i in 0..150_000 {
                        t.next_generation();
                        // One thread doubles the buckets in use, and once returns
                        // them to the first part, while the other searches on with
                        // the old ones.
                        if seed == 1 && i % 50_000 == 25_000 {
                            t.table().grow(t.mask);
                        }
                        // (A growth of the other thread's may hold the claim.)
                        while seed == 1 && i == 100_000 && !t.table().shrink() {
                            std::hint::spin_loop();
                        }
                        for _ in 0..4 {
                            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                            let k = (x >> 33) % 2_000_000 + 1;
                            if let Some(p) = t.probe(Entry::new(k, 0)) {
                                assert_eq!((p.lo, p.hi), key_bounds(k), "key {k}");
                            }
                            let (lo, hi) = key_bounds(k);
                            t.store(Entry::new(k, 0), 5, lo, hi, NO_MOVE, None);
                        }
                        t.finish_solve();
                    }
                });
            }
        });
        // Grown, shrunk, grown again.
        assert!(table.slots_in_use() >= 2 * MIN_BUCKETS * WAYS);
    }

    /// The holders (0 leader, 1 next, 2 the one after) of each suit's cards in hands,
    /// from the highest: what a key stands for.
    fn holder_sequences(rel: [u32; 3]) -> Vec<Vec<usize>> {
        (0..4)
            .map(|s| {
                (8 * s..8 * s + 8)
                    .filter_map(|card| rel.iter().position(|h| h & (1 << card) != 0))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn played_small_cards_collapse() {
        // Leader AK, next QJ vs leader AK, next Q7 (J..8 gone): same key.
        let a = [0b11, 0b1100, 0];
        let b = [0b11, 0b1000_0100, 0];
        assert_eq!(key(a), key(b));
        let c = [0b11, 0b1000_0100, 0b1000];
        assert_ne!(key(a), key(c));
    }

    /// Every holder sequence of one suit (each of its 8 cards with one of the three
    /// hands or gone: 4^8 cases) gets one rank, and distinct sequences distinct
    /// ranks, 9,841 in all.
    #[test]
    fn suit_ranks_are_one_per_holder_sequence() {
        let mut rank_of = std::collections::HashMap::new();
        let mut sequence_of = std::collections::HashMap::new();
        for owners in 0..1u32 << 16 {
            let mut rel = [0u32; 3];
            for card in 0..8 {
                let owner = (owners >> (2 * card)) & 3;
                if owner < 3 {
                    rel[owner as usize] |= 1 << card;
                }
            }
            // The other suits are empty (rank 0): the key is the rank times 9841^3.
            let rank = key(rel) / 9841u64.pow(3);
            assert_eq!(key(rel) % 9841u64.pow(3), 0);
            let sequence = holder_sequences(rel).swap_remove(0);
            assert_eq!(*rank_of.entry(sequence.clone()).or_insert(rank), rank);
            assert_eq!(
                *sequence_of.entry(rank).or_insert(sequence.clone()),
                sequence
            );
        }
        assert_eq!(rank_of.len(), 9841);
        assert!(rank_of.values().all(|&r| r < 9841));
    }

    proptest::proptest! {
        /// Two positions share a key exactly when they share the holder sequences of
        /// every suit. Each card goes to one of the three hands or is gone (0..4); the
        /// second position moves a few cards of the first.
        #[test]
        fn keys_are_equal_exactly_for_equal_holder_sequences(
            owners in proptest::collection::vec(0u8..4, 32),
            moves in proptest::collection::vec((0usize..32, 0u8..4), 0..3),
        ) {
            let hands = |owners: &[u8]| {
                let mut rel = [0u32; 3];
                for (card, &owner) in owners.iter().enumerate() {
                    if owner < 3 {
                        rel[usize::from(owner)] |= 1 << card;
                    }
                }
                rel
            };
            let mut other = owners.clone();
            for (card, owner) in moves {
                other[card] = owner;
            }
            let (a, b) = (hands(&owners), hands(&other));
            proptest::prop_assert_eq!(
                key(a) == key(b),
                holder_sequences(a) == holder_sequences(b)
            );
            proptest::prop_assert!(key(a) < 9841u64.pow(4));
        }

        /// The class key is the key of the member where the first defender holds the
        /// highest tail cards of each suit, built here card by card.
        #[test]
        fn class_key_is_the_canonical_members_key(
            owners in proptest::collection::vec(0u8..4, 32),
            declarer_rel in 0usize..3,
        ) {
            let mut rel = [0u32; 3];
            for (card, &owner) in owners.iter().enumerate() {
                if owner < 3 {
                    rel[usize::from(owner)] |= 1 << card;
                }
            }
            let live = rel[0] | rel[1] | rel[2];
            let defenders: Vec<usize> = (0..3).filter(|&h| h != declarer_rel).collect();
            let mut member = rel;
            for s in 0..4u32 {
                let lowest = (0..8)
                    .rev()
                    .map(|b| 1u32 << (8 * s + b))
                    .find(|&bit| rel[declarer_rel] & bit != 0);
                // The suit's tail: the live cards below the declarer's lowest (all of
                // them when it holds none), highest first.
                let tail: Vec<u32> = (0..8)
                    .map(|b| 1u32 << (8 * s + b))
                    .filter(|&bit| live & bit != 0 && lowest.is_none_or(|l| bit > l))
                    .collect();
                let first_count = tail.iter().filter(|&&bit| rel[defenders[0]] & bit != 0).count();
                let tail_cards = tail.iter().fold(0, |cards, &bit| cards | bit);
                for &d in &defenders {
                    member[d] &= !tail_cards;
                }
                for (i, &bit) in tail.iter().enumerate() {
                    member[defenders[usize::from(i >= first_count)]] |= bit;
                }
            }
            let tail = tail_cards(rel[declarer_rel], live);
            proptest::prop_assert_eq!(keys(rel, declarer_rel, tail), (key(rel), key(member)));
        }

        /// Per suit, the tail cards are the live cards below the declarer's lowest, or
        /// all of them when it holds none.
        #[test]
        fn tail_cards_lie_below_the_declarers_lowest(
            declarer in proptest::prelude::any::<u32>(),
            others in proptest::prelude::any::<u32>(),
        ) {
            let live = declarer | others;
            let mut expected = 0;
            for s in 0..4 {
                let suit = 0xffu32 << (8 * s);
                let lowest = (declarer & suit).checked_ilog2();
                for b in 0..32 {
                    let below = lowest.is_none_or(|l| b > l);
                    if suit & live & (1 << b) != 0 && below {
                        expected |= 1 << b;
                    }
                }
            }
            proptest::prop_assert_eq!(tail_cards(declarer, live), expected);
        }

        /// The mixing is a bijection of the identities: its inverse gives them back.
        #[test]
        fn mixing_keeps_identities_apart(k in 0..9841u64.pow(4), rel in 0u8..3) {
            proptest::prop_assert_eq!(unmix(mix(k, rel)), k * 3 + u64::from(rel));
        }
    }

    /// The inverse of [`mix`]: each step undone in reverse order.
    fn unmix(mut x: u64) -> u64 {
        let undo_xorshift = |x: u64, shift: u32| {
            let mut y = x;
            for _ in 0..IDENTITY_BITS / shift + 1 {
                y = x ^ (y >> shift);
            }
            y
        };
        // The inverse of an odd multiplier modulo 2^64 (Newton's iteration).
        let inverse = |a: u64| {
            let mut y = a;
            for _ in 0..6 {
                y = y.wrapping_mul(2u64.wrapping_sub(a.wrapping_mul(y)));
            }
            y
        };
        x = undo_xorshift(x, 27);
        x = x.wrapping_mul(inverse(0xD6E8_FEB8_6659_FD93)) & IDENTITY_MASK;
        x = undo_xorshift(x, 28);
        x.wrapping_mul(inverse(0x9E37_79B9_7F4A_7C15)) & IDENTITY_MASK
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
        let first = Arc::new(Table::open_file(&file.0, 8 << 20).unwrap());
        let second = Arc::new(Table::open_file(&file.0, 8 << 20).unwrap());
        assert_eq!(first.capacity(), (8 << 20) / 16);
        let (mut a, mut b) = (TableHandle::new(first), TableHandle::new(second));
        a.next_generation();
        b.next_generation();
        assert_eq!(
            (a.generation, b.generation),
            (1, 2),
            "one generation counter"
        );
        assert!(b.probe(Entry::new(key, 1)).is_none());
        a.store(Entry::new(key, 1), 3, 1, 2, 5, None);
        a.finish_solve();
        let p = b
            .probe(Entry::new(key, 1))
            .expect("stored through the other mapping");
        assert_eq!((p.lo, p.hi, p.best), (1, 2, 5));
        assert_eq!(b.table().used(), 1);
        drop((a, b));
        // Every user gone, the entries stay for the next one.
        let mut c = TableHandle::new(Arc::new(Table::open_file(&file.0, 8 << 20).unwrap()));
        assert_eq!(c.probe(Entry::new(key, 1)).map(|p| p.hi), Some(2));
        assert_eq!(std::fs::metadata(&file.0).unwrap().len(), 4096 + (8 << 20));
    }

    /// A table file's pages are in memory once it is open (see
    /// `table_memory::sys::map_file`): a fresh file has none until something touches
    /// them.
    #[test]
    #[cfg(target_os = "linux")]
    fn an_open_table_file_is_in_memory() {
        let file = TempTableFile::new("resident");
        let table = Table::open_file(&file.0, 8 << 20).unwrap();
        let buckets: &[Bucket] = &table.buckets;
        let bytes = std::mem::size_of_val(buckets);
        let mut resident = vec![0u8; bytes.div_ceil(4096)];
        // SAFETY: the buckets are mapped and start on a page boundary (after a one-page
        // header); mincore only reports on them.
        let rc = unsafe { libc::mincore(buckets.as_ptr() as *mut _, bytes, resident.as_mut_ptr()) };
        assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
        let missing = resident.iter().filter(|&&r| r & 1 == 0).count();
        assert_eq!(
            missing,
            0,
            "{missing} of {} pages not in memory",
            resident.len()
        );
    }

    /// A table file starts with its first buckets in use, as a private table does, and
    /// grows for every process on it: another mapping (another process) sees the
    /// buckets in use double and finds every entry the first one finds, moved or not;
    /// a later process keeps the size reached.
    #[test]
    fn a_table_file_grows_for_every_process_on_it() {
        let file = TempTableFile::new("grows");
        let bytes = 4 * MIN_BUCKETS * std::mem::size_of::<Bucket>();
        let first = Arc::new(Table::open_file(&file.0, bytes).unwrap());
        let second = Arc::new(Table::open_file(&file.0, bytes).unwrap());
        assert_eq!(first.slots_in_use(), MIN_BUCKETS * WAYS);
        let mut a = TableHandle::new(first);
        let mut b = TableHandle::new(second.clone());
        let keys: Vec<u64> = random_keys(2).take(MIN_BUCKETS * WAYS).collect();
        a.next_generation();
        for &k in &keys {
            a.store(Entry::new(k, 0), 5, 2, 3, NO_MOVE, None);
        }
        a.finish_solve();
        a.table().grow(a.mask);
        assert_eq!(second.slots_in_use(), 2 * MIN_BUCKETS * WAYS);
        a.next_generation();
        b.next_generation();
        let found = |t: &mut TableHandle| {
            keys.iter()
                .filter(|&&k| t.probe(Entry::new(k, 0)).is_some())
                .count()
        };
        let by_first = found(&mut a);
        assert!(by_first > keys.len() / 2, "{by_first}");
        assert_eq!(found(&mut b), by_first);
        drop((a, b, second));
        let later = Table::open_file(&file.0, bytes).unwrap();
        assert_eq!(later.slots_in_use(), 2 * MIN_BUCKETS * WAYS);
    }

    /// One user grows a table at a time; a claim older than a minute is of a process
    /// that died growing a table file, and the next growth takes it over.
    #[test]
    fn a_stale_growth_claim_is_taken_over() {
        let table = Table::with_sizes(0, 4 * MIN_BUCKETS * std::mem::size_of::<Bucket>());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let claim = &table.header().growing_since;
        claim.store(now, Relaxed);
        table.grow(MIN_BUCKETS - 1);
        assert_eq!(
            table.slots_in_use(),
            MIN_BUCKETS * WAYS,
            "another is growing it"
        );
        claim.store(now - STALE_GROWTH_SECS - 5, Relaxed);
        table.grow(MIN_BUCKETS - 1);
        assert_eq!(table.slots_in_use(), 2 * MIN_BUCKETS * WAYS);
        assert_eq!(claim.load(Relaxed), 0);
    }

    /// A file whose header names an impossible count of buckets in use is refused.
    #[test]
    fn a_table_file_with_a_bad_count_in_use_is_refused() {
        use std::io::{Seek, SeekFrom, Write};
        let file = TempTableFile::new("bad-mask");
        drop(Table::open_file(&file.0, 8 << 20).unwrap());
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&file.0)
            .unwrap();
        let at = std::mem::offset_of!(Header, mask) as u64;
        f.seek(SeekFrom::Start(at)).unwrap();
        f.write_all(&5usize.to_le_bytes()).unwrap();
        drop(f);
        let err = Table::open_file(&file.0, 8 << 20).err().unwrap();
        assert!(
            err.to_string().contains("6 of its 65536 buckets in use"),
            "{err}"
        );
    }

    #[test]
    fn a_table_file_of_another_size_format_or_mode_is_refused_and_left_alone() {
        use crate::TableFileError;
        let file = TempTableFile::new("refused");
        drop(Table::open_file(&file.0, 8 << 20).unwrap());
        let err = Table::open_file(&file.0, 16 << 20).err().unwrap();
        assert!(
            matches!(
                err,
                TableFileError::Size {
                    found_mib: 8,
                    wanted_mib: 16,
                    ..
                }
            ),
            "{err}"
        );
        // Another format number in the header.
        let mut bytes = std::fs::read(&file.0).unwrap();
        bytes[8] = 99;
        std::fs::write(&file.0, &bytes).unwrap();
        let err = Table::open_file(&file.0, 8 << 20).err().unwrap();
        assert!(err.to_string().contains("format 99"), "{err}");
        // Not a table at all: refused, and not overwritten.
        for content in [&b"precious"[..], &[0u8; 5000][..]] {
            std::fs::write(&file.0, content).unwrap();
            let err = Table::open_file(&file.0, 8 << 20).err().unwrap();
            assert!(matches!(err, TableFileError::Format { .. }), "{err}");
            assert_eq!(std::fs::read(&file.0).unwrap(), content);
        }
        // A header that names more buckets than the file holds.
        bytes.truncate(4096 + 64);
        bytes[8] = TABLE_FORMAT as u8;
        std::fs::write(&file.0, &bytes).unwrap();
        let err = Table::open_file(&file.0, 8 << 20).err().unwrap();
        assert!(err.to_string().contains("bytes long"), "{err}");
        // Writable by others: refused, whatever it holds.
        std::fs::remove_file(&file.0).unwrap();
        drop(Table::open_file(&file.0, 8 << 20).unwrap());
        let others_write = std::os::unix::fs::PermissionsExt::from_mode(0o622);
        std::fs::set_permissions(&file.0, others_write).unwrap();
        let err = Table::open_file(&file.0, 8 << 20).err().unwrap();
        assert!(err.to_string().contains("mode 622"), "{err}");
        let dir = std::env::temp_dir()
            .join("deckhand-no-such-dir")
            .join("t.table");
        let err = Table::open_file(&dir, 8 << 20).err().unwrap();
        assert!(matches!(err, TableFileError::Io { .. }), "{err}");
    }

    /// What a table file's entries mean: their key, slot layout, bucket index and
    /// strain tags. A change to any of them must bump [`TABLE_FORMAT`] (files of the
    /// old format are then refused, not misread) and update the fingerprint here.
    #[test]
    fn format_is_pinned() {
        let mut fingerprint = 0xcbf2_9ce4_8422_2325u64;
        let mut mix_in = |x: u64| {
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
            mix_in(k);
            let declarer_rel = (x % 3) as usize;
            let live = rel[0] | rel[1] | rel[2];
            mix_in(keys(rel, declarer_rel, tail_cards(rel[declarer_rel], live)).1);
            mix_in(super::mix(k, (x % 3) as u8));
        }
        let data = Data {
            lo: 1,
            hi: 2,
            tricks: 4,
            class: true,
            best: 5,
            generation: 6,
            strain: 7,
            scope: 1,
        };
        mix_in(data.pack());
        mix_in(reliance_word(!0 << DATA_BITS, 7, 1, 2, RELIED_ALL));
        mix_in(reliance_word(0, 7, 1, 2, 1));
        // The identity bit that picks a misère or no-trump entry's line: two entries
        // it puts in different lines.
        let mut handle = TableHandle::new(Arc::new(Table::new(0)));
        handle.set_strain(Strain::Misere);
        let lines = [5, 6].map(|key| handle.place(Entry::new(key, 1)).1);
        assert_eq!(lines, [0, 1]);
        lines.into_iter().for_each(|line| mix_in(line as u64));
        for strain in [
            Strain::Trump(crate::Suit::Spades),
            Strain::Trump(crate::Suit::Hearts),
            Strain::Trump(crate::Suit::Diamonds),
            Strain::Trump(crate::Suit::Clubs),
            Strain::NoTrump,
            Strain::Misere,
        ] {
            mix_in(u64::from(strain_tag(strain)));
        }
        mix_in(std::mem::size_of::<Bucket>() as u64);
        mix_in(WAYS as u64);
        // The header's shared fields, where every process finds them.
        mix_in(std::mem::size_of::<Header>() as u64);
        mix_in(std::mem::offset_of!(Header, generation) as u64);
        mix_in(std::mem::offset_of!(Header, used) as u64);
        mix_in(std::mem::offset_of!(Header, mask) as u64);
        mix_in(std::mem::offset_of!(Header, growing_since) as u64);
        assert_eq!(
            (TABLE_FORMAT, fingerprint),
            (8, 1_945_385_805_098_926_781),
            "the table's format changed: bump TABLE_FORMAT and update this fingerprint"
        );
    }
}
