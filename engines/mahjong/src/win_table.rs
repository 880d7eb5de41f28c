//! The shape-key lookup table behind the standard-form win check.
//!
//! A hand's 34 counts become a compact *shape key*: the non-zero counts are
//! grouped into blocks (maximal runs of consecutive non-zero counts inside one
//! suit; every honour is a block of its own), and written from bit 0 upwards
//! as, per tile, a `0` bit then `2 * (count - 1)` one bits, and per block end
//! a single `1` bit. A run of ones after a tile's `0` is therefore odd exactly
//! when the block ends there, so the key is injective, and a 14-tile hand
//! needs at most 28 bits.
//!
//! A sequence never crosses a block boundary, so the decompositions of a hand
//! depend only on its key. The table maps every key of a complete standard
//! hand (pair plus 0..=4 melds: 2, 5, 8, 11 or 14 tiles) to all of its
//! decompositions, each packed in a `u32` as positions in the list of the
//! hand's distinct tiles (see [`Packed`]).
//!
//! The table is generated here, from first principles, at first use:
//! every placement of a pair and up to four melds on a 9-position line gives
//! the *blocks* (gap-free count patterns) and their decompositions; every
//! ordered sequence of blocks with at most 14 tiles and exactly one pair then
//! gives a key, whose decompositions are the products of its blocks'.
//! [`table_stats`] reports its size (see the module docs of `engine`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use super::tile::TILE_KINDS;

/// `2 * (count - 1)` one bits, indexed by count.
const ONES: [u32; 5] = [0, 0, 0b11, 0b1111, 0b11_1111];

/// Key bits and bit length added by one suit tile, indexed by
/// `5 * (previous tile of the suit held) + count`: a held tile adds its `0`
/// bit and ones; an empty tile after a held one closes the block.
const SUIT_STEP: [(u32, u32); 10] = {
    let mut t = [(0u32, 0u32); 10];
    let mut c = 1;
    while c < 5 {
        t[c] = (ONES[c] << 1, 2 * c as u32 - 1);
        t[5 + c] = t[c];
        c += 1;
    }
    t[5] = (1, 1);
    t
};

/// Key bits and bit length of one honour tile (always a block of its own).
const HONOUR_STEP: [(u32, u32); 5] = {
    let mut t = [(0u32, 0u32); 5];
    let mut c = 1;
    while c < 5 {
        t[c] = (ONES[c] << 1 | 1 << (2 * c - 1), 2 * c as u32);
        c += 1;
    }
    t
};

/// Key bits and length of three consecutive suit tiles, indexed by
/// `c0 + 5 c1 + 25 c2 + 125 * (tile before the group held)`.
static SUIT_GROUP: [(u32, u32); 250] = {
    let mut t = [(0u32, 0u32); 250];
    let mut i = 0;
    while i < 250 {
        let mut prev = i >= 125;
        let mut rest = i % 125;
        let (mut bits, mut len) = (0u32, 0u32);
        let mut k = 0;
        while k < 3 {
            let c = rest % 5;
            rest /= 5;
            let (b, l) = SUIT_STEP[if prev { 5 + c } else { c }];
            bits |= b << len;
            len += l;
            prev = c != 0;
            k += 1;
        }
        t[i] = (bits, len);
        i += 1;
    }
    t
};

/// Key bits and length of four honours, indexed by `c0 + 5 c1 + 25 c2 + 125 c3`.
static HONOUR_GROUP: [(u32, u32); 625] = {
    let mut t = [(0u32, 0u32); 625];
    let mut i = 0;
    while i < 625 {
        let mut rest = i;
        let (mut bits, mut len) = (0u32, 0u32);
        let mut k = 0;
        while k < 4 {
            let (b, l) = HONOUR_STEP[rest % 5];
            rest /= 5;
            bits |= b << len;
            len += l;
            k += 1;
        }
        t[i] = (bits, len);
        i += 1;
    }
    t
};

#[inline(always)]
fn group_index(counts: &[u8]) -> usize {
    counts
        .iter()
        .rev()
        .fold(0, |acc, &c| acc * 5 + usize::from(c).min(4))
}

/// The shape key of `counts` (see module docs), three suit tiles or four
/// honours per table step. `counts` must hold at most 4 copies of a tile and
/// 14 tiles in total, so the key fits in 28 bits.
#[inline]
pub(crate) fn shape_key(counts: &[u8; TILE_KINDS]) -> u32 {
    let mut key = 0u32;
    let mut p = 0u32;
    for suit in counts[..27].chunks_exact(9) {
        let mut prev = 0usize;
        for group in suit.chunks_exact(3) {
            let (bits, len) = SUIT_GROUP
                .get(group_index(group) + 125 * prev)
                .copied()
                .unwrap_or((0, 0));
            key |= bits.wrapping_shl(p);
            p += len;
            prev = usize::from(group[2] != 0);
        }
        key |= (prev as u32).wrapping_shl(p);
        p += prev as u32;
    }
    for group in counts[27..].chunks(4) {
        let (bits, len) = HONOUR_GROUP
            .get(group_index(group))
            .copied()
            .unwrap_or((0, 0));
        key |= bits.wrapping_shl(p);
        p += len;
    }
    debug_assert!(p <= 32);
    key
}

/// The shape key computed tile by tile (reference for [`shape_key`]).
#[cfg(test)]
fn shape_key_slow(counts: &[u8; TILE_KINDS]) -> u32 {
    let mut key = 0u32;
    let mut p = 0u32;
    for suit in counts[..27].chunks_exact(9) {
        let mut prev = 0usize;
        for &c in suit {
            let (bits, len) = SUIT_STEP[prev * 5 + usize::from(c)];
            key |= bits << p;
            p += len;
            prev = usize::from(c != 0);
        }
        key |= (prev as u32) << p;
        p += prev as u32;
    }
    for &c in &counts[27..] {
        let (bits, len) = HONOUR_STEP[usize::from(c)];
        key |= bits << p;
        p += len;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouped_key_matches_tile_by_tile() {
        let mut x = 0x1234_5678_9abc_def1u64;
        for _ in 0..20_000 {
            let mut counts = [0u8; TILE_KINDS];
            let n = 1 + (x % 14) as usize;
            let mut placed = 0;
            while placed < n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let t = (x % 34) as usize;
                if counts[t] < 4 {
                    counts[t] += 1;
                    placed += 1;
                }
            }
            assert_eq!(shape_key(&counts), shape_key_slow(&counts), "{counts:?}");
        }
    }
}

/// The shape key and the list of the hand's distinct tiles (ids ascending),
/// which packed decompositions index into. Returns the number of distinct tiles.
pub(crate) fn shape_key_positions(
    counts: &[u8; TILE_KINDS],
    positions: &mut [u8; 14],
) -> (u32, usize) {
    let mut n = 0;
    for (id, &c) in counts.iter().enumerate() {
        if c != 0 && n < positions.len() {
            positions[n] = id as u8;
            n += 1;
        }
    }
    (shape_key(counts), n)
}

/// A decomposition packed in a `u32`: bits 0..4 the pair's position, 4..7 the
/// number of triplets, 7..10 the number of sequences, then 4 bits per meld
/// position (triplets first, then sequences), each a position in the hand's
/// distinct-tile list.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Packed(pub u32);

impl Packed {
    fn pack(pair: u8, triplets: &[u8], sequences: &[u8]) -> Packed {
        let mut v = u32::from(pair) | (triplets.len() as u32) << 4 | (sequences.len() as u32) << 7;
        for (i, &m) in triplets.iter().chain(sequences).enumerate() {
            v |= u32::from(m) << (10 + 4 * i);
        }
        Packed(v)
    }

    pub(crate) fn pair(self) -> usize {
        (self.0 & 0xf) as usize
    }

    pub(crate) fn triplets(self) -> impl Iterator<Item = usize> {
        let n = (self.0 >> 4) & 7;
        (0..n).map(move |i| ((self.0 >> (10 + 4 * i)) & 0xf) as usize)
    }

    pub(crate) fn sequences(self) -> impl Iterator<Item = usize> {
        let t = (self.0 >> 4) & 7;
        let n = (self.0 >> 7) & 7;
        (t..t + n).map(move |i| ((self.0 >> (10 + 4 * i)) & 0xf) as usize)
    }
}

/// Open-addressing hash table from shape key to a run of packed decompositions.
pub(crate) struct WinTable {
    /// `(key, start << 8 | len)`; key 0 marks an empty slot (no real key is 0).
    slots: Box<[(u32, u32)]>,
    shift: u32,
    decompositions: Box<[Packed]>,
    keys: usize,
}

/// Size of the generated win table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TableStats {
    /// Number of shape keys (complete standard shapes of 2..=14 tiles).
    pub keys: usize,
    /// Number of decompositions stored over all keys.
    pub decompositions: usize,
    /// Heap bytes held by the table.
    pub bytes: usize,
}

#[inline]
fn hash(key: u32, shift: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B1) >> shift) as usize
}

impl WinTable {
    pub(crate) fn get() -> &'static WinTable {
        static TABLE: OnceLock<WinTable> = OnceLock::new();
        TABLE.get_or_init(build)
    }

    /// The decompositions of `key`, empty if the shape is not complete.
    #[inline]
    pub(crate) fn lookup(&self, key: u32) -> &[Packed] {
        let mask = self.slots.len() - 1;
        let mut i = hash(key, self.shift);
        loop {
            let (k, v) = self.slots[i & mask];
            if k == key {
                let start = (v >> 8) as usize;
                let len = (v & 0xff) as usize;
                return self.decompositions.get(start..start + len).unwrap_or(&[]);
            }
            if k == 0 {
                return &[];
            }
            i += 1;
        }
    }

    pub(crate) fn stats(&self) -> TableStats {
        TableStats {
            keys: self.keys,
            decompositions: self.decompositions.len(),
            bytes: std::mem::size_of_val(&*self.slots)
                + std::mem::size_of_val(&*self.decompositions),
        }
    }
}

/// Size of the win table (builds it if needed).
pub fn table_stats() -> TableStats {
    WinTable::get().stats()
}

/// One decomposition of a block: pair position, triplet and sequence
/// positions (ascending), relative to the block's first tile.
type BlockDecomp = (Option<u8>, Vec<u8>, Vec<u8>);

/// A gap-free count pattern and all its decompositions.
struct Block {
    /// Key bits of the block, end bit included, and their number.
    bits: u32,
    len_bits: u32,
    /// Number of distinct tiles (positions) in the block.
    width: u8,
    tiles: u8,
    has_pair: bool,
    decomps: Vec<BlockDecomp>,
}

/// Every gap-free pattern made of at most one pair and at most four melds on
/// nine positions, with its decompositions.
fn blocks() -> Vec<Block> {
    // Meld kinds: 0..9 triplet at i, 9..16 sequence starting at i - 9.
    fn melds(start: usize, chosen: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        out.push(chosen.clone());
        if chosen.len() == 4 {
            return;
        }
        for kind in start..16 {
            chosen.push(kind);
            melds(kind, chosen, out);
            chosen.pop();
        }
    }
    let mut meld_sets = Vec::new();
    melds(0, &mut Vec::new(), &mut meld_sets);

    let mut patterns: BTreeMap<Vec<u8>, BTreeSet<BlockDecomp>> = BTreeMap::new();
    for pair in std::iter::once(None).chain((0..9u8).map(Some)) {
        for set in &meld_sets {
            if pair.is_none() && set.is_empty() {
                continue;
            }
            let mut counts = [0u8; 9];
            if let Some(p) = pair {
                counts[usize::from(p)] += 2;
            }
            for &kind in set {
                if kind < 9 {
                    counts[kind] += 3;
                } else {
                    for c in &mut counts[kind - 9..kind - 6] {
                        *c += 1;
                    }
                }
            }
            if counts.iter().any(|&c| c > 4) {
                continue;
            }
            let (Some(first), Some(last)) = (
                counts.iter().position(|&c| c > 0),
                counts.iter().rposition(|&c| c > 0),
            ) else {
                continue;
            };
            if counts[first..=last].contains(&0) {
                continue;
            }
            let f = first as u8;
            let mut triplets: Vec<u8> = set
                .iter()
                .filter(|&&k| k < 9)
                .map(|&k| k as u8 - f)
                .collect();
            let mut sequences: Vec<u8> = set
                .iter()
                .filter(|&&k| k >= 9)
                .map(|&k| k as u8 - 9 - f)
                .collect();
            triplets.sort_unstable();
            sequences.sort_unstable();
            patterns
                .entry(counts[first..=last].to_vec())
                .or_default()
                .insert((pair.map(|p| p - f), triplets, sequences));
        }
    }

    patterns
        .into_iter()
        .map(|(pattern, decomps)| {
            let mut bits = 0u32;
            let mut p = 0u32;
            for &c in &pattern {
                p += 1;
                bits |= ONES[usize::from(c)] << p;
                p += 2 * (u32::from(c) - 1);
            }
            bits |= 1 << p;
            let tiles: u8 = pattern.iter().sum();
            Block {
                bits,
                len_bits: p + 1,
                width: pattern.len() as u8,
                tiles,
                has_pair: tiles % 3 == 2,
                decomps: decomps.into_iter().collect(),
            }
        })
        .collect()
}

/// Emits every ordered block sequence with exactly one pair block and at most
/// 14 tiles, as (key, packed decompositions).
struct ShapeBuilder<'a> {
    blocks: &'a [Block],
    entries: Vec<(u32, Vec<Packed>)>,
}

impl ShapeBuilder<'_> {
    fn extend(&mut self, chosen: &mut Vec<usize>, key: u32, bits: u32, tiles: u8, has_pair: bool) {
        if has_pair {
            let decomps = self.decompositions(chosen);
            self.entries.push((key, decomps));
        }
        for (i, block) in self.blocks.iter().enumerate() {
            if tiles + block.tiles > 14 || (has_pair && block.has_pair) {
                continue;
            }
            chosen.push(i);
            self.extend(
                chosen,
                key | block.bits << bits,
                bits + block.len_bits,
                tiles + block.tiles,
                has_pair || block.has_pair,
            );
            chosen.pop();
        }
    }

    /// All decompositions of a block sequence: one decomposition per block,
    /// positions shifted by the block's offset in the distinct-tile list.
    fn decompositions(&self, chosen: &[usize]) -> Vec<Packed> {
        let mut partial: Vec<(u8, Vec<u8>, Vec<u8>)> = vec![(0, Vec::new(), Vec::new())];
        let mut offset = 0u8;
        for &b in chosen {
            let block = &self.blocks[b];
            let mut next = Vec::with_capacity(partial.len() * block.decomps.len());
            for (pair, trips, seqs) in &partial {
                for (bp, bt, bs) in &block.decomps {
                    let mut t = trips.clone();
                    t.extend(bt.iter().map(|&x| x + offset));
                    let mut s = seqs.clone();
                    s.extend(bs.iter().map(|&x| x + offset));
                    next.push((bp.map_or(*pair, |p| p + offset), t, s));
                }
            }
            partial = next;
            offset += block.width;
        }
        // Blocks are in tile order and each block's lists ascend, so the lists
        // ascend; sorting the tuples gives the deterministic order.
        partial.sort();
        partial.dedup();
        partial
            .iter()
            .map(|(p, t, s)| Packed::pack(*p, t, s))
            .collect()
    }
}

fn build() -> WinTable {
    let blocks = blocks();
    let mut builder = ShapeBuilder {
        blocks: &blocks,
        entries: Vec::new(),
    };
    builder.extend(&mut Vec::new(), 0, 0, 0, false);
    let entries = builder.entries;

    let keys = entries.len();
    let size = (keys * 2).next_power_of_two().max(2);
    let shift = 32 - size.trailing_zeros();
    let mut slots = vec![(0u32, 0u32); size].into_boxed_slice();
    let mut decompositions = Vec::new();
    for (key, decomps) in entries {
        debug_assert!(key != 0 && !decomps.is_empty() && decomps.len() < 256);
        let value = (decompositions.len() as u32) << 8 | decomps.len() as u32;
        decompositions.extend(decomps);
        let mut i = hash(key, shift);
        loop {
            let slot = &mut slots[i & (size - 1)];
            if slot.0 == 0 {
                *slot = (key, value);
                break;
            }
            // Block sequences map to distinct keys (the encoding is injective).
            debug_assert!(slot.0 != key);
            i += 1;
        }
    }
    WinTable {
        slots,
        shift,
        decompositions: decompositions.into_boxed_slice(),
        keys,
    }
}
