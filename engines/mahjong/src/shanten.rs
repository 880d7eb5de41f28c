//! Shanten (deficiency) numbers.
//!
//! Definition (exact, the one `xiangting` uses): the *replacement number* of a
//! concealed part of `n` tiles is the least number of tiles it must draw to
//! hold a complete hand of `3 * (n / 3) + 2` tiles, with at most four copies
//! of any tile in the part; shanten is that number minus one (-1 complete,
//! 0 ready). So `1111m` is 1-shanten, not ready: its only "wait" would be a
//! fifth `1m`.
//!
//! Standard form: a per-suit table gives, for every count pattern of one suit
//! (at most 14 tiles: 405,350 patterns over 9 positions, 43,130 over the 7
//! honours), the fewest tiles to add so that the suit holds `m` melds plus `p`
//! pairs (`m` 0..=4, `p` 0..=1) within four copies. A hand's number is then a
//! min-plus combination of the four suit vectors (tabulated by vector id
//! pairs, see `Tables`).
//!
//! The tables are built at first use: mark every target pattern (`m` melds
//! plus `p` pairs within four copies), close the marks downwards (a pattern
//! below a target can grow into it), then the best overlap with a target is
//! `|h|` for a marked `h` and `max_i best(h - e_i)` otherwise, and the cost is
//! `3m + 2p - best`.

use std::sync::OnceLock;

use super::counts::TileCounts;
use super::tile::TILE_KINDS;

/// Shanten of a hand in each form, and the least of them.
///
/// `seven_pairs` and `thirteen_orphans` are only defined for a fully
/// concealed hand of 13 or 14 tiles (`None` otherwise).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shanten {
    pub standard: i8,
    pub seven_pairs: Option<i8>,
    pub thirteen_orphans: Option<i8>,
    pub minimum: i8,
}

/// Shanten in every form (see the module docs for the definition).
pub fn shanten(hand: &TileCounts) -> Shanten {
    let counts = hand.as_array();
    let words = count_words(counts);
    let total = total_of(&words);
    let standard = standard_shanten_counts(counts, total);
    let (seven_pairs, thirteen_orphans) = if total >= 13 {
        let (seven_pairs, orphans) = special_shanten(&words);
        (Some(seven_pairs), Some(orphans))
    } else {
        (None, None)
    };
    let minimum = standard
        .min(seven_pairs.unwrap_or(i8::MAX))
        .min(thirteen_orphans.unwrap_or(i8::MAX));
    Shanten {
        standard,
        seven_pairs,
        thirteen_orphans,
        minimum,
    }
}

/// Standard-form shanten only: the fast path.
#[inline]
pub fn standard_shanten(hand: &TileCounts) -> i8 {
    let counts = hand.as_array();
    standard_shanten_counts(counts, total_of(&count_words(counts)))
}

/// One bit per byte lane.
const LANES: u64 = 0x0101_0101_0101_0101;

/// The 34 counts as five little-endian words (eight counts each, zero padded).
#[inline(always)]
fn count_words(counts: &[u8; TILE_KINDS]) -> [u64; 5] {
    let mut padded = [0u8; 40];
    padded[..TILE_KINDS].copy_from_slice(counts);
    let (chunks, _) = padded.as_chunks::<8>();
    std::array::from_fn(|i| chunks.get(i).map_or(0, |&c| u64::from_le_bytes(c)))
}

/// Number of tiles: the byte sum of each word lands in its top byte (counts
/// are at most 4, so a word sums to at most 32 and nothing overflows).
#[inline(always)]
fn total_of(words: &[u64; 5]) -> usize {
    words
        .iter()
        .map(|w| (w.wrapping_mul(LANES) >> 56) as usize)
        .sum()
}

/// Byte lanes of the thirteen orphans (1m 9m 1p 9p 1s 9s 1z..7z) in the five
/// little-endian words of the counts.
const ORPHAN_LANES: [u64; 5] = [0x01, 0x0101, 0x0001_0100, 0x0101_0101_0101_0000, 0x0101];

/// Seven pairs and thirteen orphans shanten (13 or 14 tiles), eight counts
/// at a time: seven distinct pairs `6 - pairs + max(0, 7 - kinds)`; thirteen
/// orphans `13 - orphan kinds - (1 if an orphan is held twice)`.
#[inline]
fn special_shanten(words: &[u64; 5]) -> (i8, i8) {
    // Lane masks (one bit per byte) summed as bytes, counted at the end with
    // one multiply each: `count_ones` is a slow bit loop without the popcnt
    // target feature. Sums stay below 256 per byte (at most 5 words).
    let (mut pairs, mut kinds, mut orphan_kinds, mut orphan_pairs) = (0u64, 0u64, 0u64, 0u64);
    for (&x, lanes) in words.iter().zip(ORPHAN_LANES) {
        // Counts are at most 4 (three bits), so no bit leaks between lanes.
        let two = ((x >> 1) | (x >> 2)) & LANES;
        let one = (x | two) & LANES;
        pairs += two;
        kinds += one;
        orphan_kinds += one & lanes;
        orphan_pairs |= two & lanes;
    }
    let count = |lanes: u64| (lanes.wrapping_mul(LANES) >> 56) as i8;
    let seven_pairs = 6 - count(pairs) + (7 - count(kinds)).max(0);
    let orphans = 13 - count(orphan_kinds) - i8::from(orphan_pairs != 0);
    (seven_pairs, orphans)
}

/// Largest tile total a suit pattern can hold.
const MAX_TILES: usize = 14;

/// Costs indexed by `m + 5 * p`: tiles to add for `m` melds and `p` pairs.
type Costs = [u8; 10];

/// Per-suit cost table over count patterns of `LEN` positions.
struct SuitTable<const LEN: usize> {
    /// Costs packed by [`pack`].
    costs: Box<[u32]>,
    /// `offsets[i][s][h]`: rank contribution of count `h` at position `i`
    /// when the positions above `i` hold `s` tiles.
    offsets: [[[u32; 5]; MAX_TILES + 1]; LEN],
}

/// Number of count vectors of length `k` (entries 0..=4) with sum at most `r`.
fn count_vectors(k: usize, r: i64) -> u64 {
    if r < 0 {
        return 0;
    }
    if k == 0 {
        return 1;
    }
    (0..=4).map(|c| count_vectors(k - 1, r - c)).sum()
}

impl<const LEN: usize> SuitTable<LEN> {
    /// Rank of a pattern among all patterns of at most 14 tiles, in the order
    /// of `sum(h[i] * 5^i)`. The caller guarantees at most 14 tiles.
    #[inline(always)]
    fn rank(&self, counts: &[u8]) -> usize {
        let mut rank = 0u32;
        let mut s = 0usize;
        for i in (0..LEN).rev() {
            let h = usize::from(counts.get(i).copied().unwrap_or(0)).min(4);
            rank += self.offsets[i][s.min(MAX_TILES)][h];
            s += h;
        }
        rank as usize
    }

    #[inline(always)]
    fn costs(&self, counts: &[u8]) -> Costs {
        unpack(self.costs.get(self.rank(counts)).copied().unwrap_or(0))
    }

    fn build(sequences: bool) -> SuitTable<LEN> {
        let mut offsets = [[[0u32; 5]; MAX_TILES + 1]; LEN];
        for (i, by_sum) in offsets.iter_mut().enumerate() {
            for (s, row) in by_sum.iter_mut().enumerate() {
                for h in 1..5 {
                    let below = count_vectors(i, MAX_TILES as i64 - s as i64 - (h as i64 - 1));
                    row[h] = row[h - 1] + below as u32;
                }
            }
        }

        let pow: [usize; LEN] = std::array::from_fn(|i| 5usize.pow(i as u32));
        let size = 5usize.pow(LEN as u32);
        let digits =
            |idx: usize| -> [u8; LEN] { std::array::from_fn(|i| (idx / pow[i] % 5) as u8) };

        // 1. Mark every target: m melds plus p pairs within four copies.
        let kinds = if sequences { 2 * LEN - 2 } else { LEN };
        let mut marks = vec![0u16; size];
        let mut melds: Vec<usize> = Vec::with_capacity(4);
        mark_targets::<LEN>(&mut melds, 0, kinds, &pow, &mut marks);

        // 2. Close downwards: h is below a target if h + e_i is.
        for idx in (0..size).rev() {
            let d = digits(idx);
            if d.iter().map(|&c| usize::from(c)).sum::<usize>() >= MAX_TILES {
                continue;
            }
            let mut m = marks[idx];
            for i in 0..LEN {
                if d[i] < 4 {
                    m |= marks[idx + pow[i]];
                }
            }
            marks[idx] = m;
        }

        // 3. Best overlap with a target, in rank order (= index order).
        let mut rank_of = vec![u32::MAX; size];
        let mut best: Vec<Costs> = Vec::new();
        for (idx, &mark) in marks.iter().enumerate() {
            let d = digits(idx);
            let sum = d.iter().sum::<u8>();
            if usize::from(sum) > MAX_TILES {
                continue;
            }
            rank_of[idx] = best.len() as u32;
            let mut b = [0u8; 10];
            for i in 0..LEN {
                if d[i] > 0 {
                    let lower = &best[rank_of[idx - pow[i]] as usize];
                    for k in 0..10 {
                        b[k] = b[k].max(lower[k]);
                    }
                }
            }
            for (k, bk) in b.iter_mut().enumerate() {
                if mark & (1 << k) != 0 {
                    *bk = sum;
                }
            }
            best.push(b);
        }
        for b in &mut best {
            for (k, bk) in b.iter_mut().enumerate() {
                let target = 3 * (k % 5) as u8 + 2 * (k / 5) as u8;
                *bk = target - *bk;
            }
        }
        let costs: Vec<u32> = best.iter().map(pack).collect();
        debug_assert!(best.iter().zip(&costs).all(|(b, &c)| unpack(c) == *b));
        SuitTable {
            costs: costs.into_boxed_slice(),
            offsets,
        }
    }
}

/// Packs costs in 18 bits: 2 bits each for `c[m+1][0] - c[m][0]` (m 0..4),
/// `c[0][1]`, and `c[m+1][1] - c[m][1]`. Costs grow with `m` by at most 3
/// (a target with one meld fewer is one meld smaller) and `c[0][0] = 0`;
/// the table build checks the round trip.
fn pack(c: &Costs) -> u32 {
    let mut v = 0u32;
    for m in 0..4 {
        v |= u32::from(c[m + 1].wrapping_sub(c[m]) & 3) << (2 * m);
        v |= u32::from(c[m + 6].wrapping_sub(c[m + 5]) & 3) << (2 * m + 10);
    }
    v | u32::from(c[5] & 3) << 8
}

#[inline(always)]
fn unpack(v: u32) -> Costs {
    let mut c = [0u8; 10];
    c[5] = (v >> 8 & 3) as u8;
    for m in 0..4 {
        c[m + 1] = c[m] + (v >> (2 * m) & 3) as u8;
        c[m + 6] = c[m + 5] + (v >> (2 * m + 10) & 3) as u8;
    }
    c
}

/// Recursively chooses up to four melds (kinds ascending: triplets at 0..LEN,
/// then sequences at kind - LEN) and marks each with every pair choice.
fn mark_targets<const LEN: usize>(
    melds: &mut Vec<usize>,
    start: usize,
    kinds: usize,
    pow: &[usize; LEN],
    marks: &mut [u16],
) {
    let mut counts = [0u8; LEN];
    for &kind in melds.iter() {
        if kind < LEN {
            counts[kind] += 3;
        } else {
            for c in &mut counts[kind - LEN..kind - LEN + 3] {
                *c += 1;
            }
        }
    }
    let m = melds.len();
    let index = |counts: &[u8; LEN]| -> usize {
        counts
            .iter()
            .zip(pow)
            .map(|(&c, &p)| usize::from(c) * p)
            .sum()
    };
    if counts.iter().all(|&c| c <= 4) {
        marks[index(&counts)] |= 1 << m;
        for p in 0..LEN {
            if counts[p] <= 2 {
                let mut with_pair = counts;
                with_pair[p] += 2;
                marks[index(&with_pair)] |= 1 << (m + 5);
            }
        }
    }
    if m == 4 {
        return;
    }
    for kind in start..kinds {
        melds.push(kind);
        mark_targets::<LEN>(melds, kind, kinds, pow, marks);
        melds.pop();
    }
}

/// The tables of the hot path. A suit's cost vector is one of only a few
/// distinct vectors (126 for numbered suits, 55 for honours), so each suit
/// pattern maps to a one-byte id (405,350 bytes, cache friendly), and the
/// min-plus products of id pairs (man x pin, sou x honours) are tabulated:
/// a hand's shanten is four id loads, two product loads and one final
/// min over the meld split.
struct Tables {
    /// Suit rank three positions at a time: `suit_rank3[g][s][c0 + 5 c1 + 25 c2]`
    /// is the rank contribution of positions `3g..3g+3` holding `c0 c1 c2`
    /// when the positions above hold `s` tiles (the sum of three
    /// [`SuitTable`] offsets), so a rank is three independent loads.
    suit_rank3: Box<[[[u32; 125]; MAX_TILES + 1]; 3]>,
    /// Cost-vector id of each numbered-suit pattern, by rank.
    suit_ids: Box<[u8]>,
    /// Honour cost-vector id by count histogram: honours form no sequences,
    /// so the costs depend only on how many honours are held once, twice,
    /// three and four times; index `sum(HONOUR_WEIGHT[count])`.
    honour_ids: Box<[u8; 4096]>,
    suit_vectors: Vec<Costs>,
    honour_vectors: Vec<Costs>,
    /// `combine(suit a, suit b)` at `a * suits + b`.
    suit_pair: Box<[Costs]>,
    /// `combine(suit a, honours h)` at `a * honours + h`.
    suit_honour: Box<[Costs]>,
    /// Patterns covered: (numbered suit, honours).
    patterns: (usize, usize),
}

/// Histogram weights of an honour count (3 bits per bucket).
const HONOUR_WEIGHT: [u16; 5] = [0, 1, 8, 64, 512];

/// Ids of the distinct vectors of `costs` (in first-seen order).
fn intern(costs: impl Iterator<Item = Costs>, vectors: &mut Vec<Costs>) -> Vec<u8> {
    let mut index = std::collections::HashMap::new();
    costs
        .map(|c| {
            *index.entry(c).or_insert_with(|| {
                vectors.push(c);
                (vectors.len() - 1) as u8
            })
        })
        .collect()
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let suit = SuitTable::<9>::build(true);
        let honours = SuitTable::<7>::build(false);
        let mut suit_rank3 = Box::new([[[0u32; 125]; MAX_TILES + 1]; 3]);
        for (g, by_sum) in suit_rank3.iter_mut().enumerate() {
            for (s, row) in by_sum.iter_mut().enumerate() {
                for (key, slot) in row.iter_mut().enumerate() {
                    let c = [key % 5, key / 5 % 5, key / 25];
                    let clamp = |x: usize| x.min(MAX_TILES);
                    *slot = suit.offsets[3 * g + 2][clamp(s)][c[2]]
                        + suit.offsets[3 * g + 1][clamp(s + c[2])][c[1]]
                        + suit.offsets[3 * g][clamp(s + c[2] + c[1])][c[0]];
                }
            }
        }
        let mut suit_vectors = Vec::new();
        let suit_ids = intern(suit.costs.iter().map(|&c| unpack(c)), &mut suit_vectors);
        // One representative pattern per histogram: counts in descending order.
        let histogram_costs = (0..4096usize).map(|key| {
            let buckets = [key & 7, key >> 3 & 7, key >> 6 & 7, key >> 9 & 7];
            let mut pattern = [0u8; 7];
            let mut i = 0;
            for count in (1..=4).rev() {
                for _ in 0..buckets[count - 1] {
                    if let Some(p) = pattern.get_mut(i) {
                        *p = count as u8;
                    }
                    i += 1;
                }
            }
            let tiles: usize = (1..=4).map(|c| c * buckets[c - 1]).sum();
            // Impossible histograms get the empty pattern's costs.
            if i > 7 || tiles > MAX_TILES {
                pattern = [0; 7];
            }
            honours.costs(&pattern)
        });
        let mut honour_vectors = Vec::new();
        let honour_list = intern(histogram_costs, &mut honour_vectors);
        let mut honour_ids = Box::new([0u8; 4096]);
        honour_ids.copy_from_slice(&honour_list);
        assert!(suit_vectors.len() <= 256 && honour_vectors.len() <= 256);
        let suit_pair = suit_vectors
            .iter()
            .flat_map(|a| suit_vectors.iter().map(move |b| combine(a, b)))
            .collect();
        let suit_honour = suit_vectors
            .iter()
            .flat_map(|a| honour_vectors.iter().map(move |h| combine(a, h)))
            .collect();
        Tables {
            suit_rank3,
            suit_ids: suit_ids.into_boxed_slice(),
            honour_ids,
            suit_vectors,
            honour_vectors,
            suit_pair,
            suit_honour,
            patterns: (suit.costs.len(), honours.costs.len()),
        }
    })
}

impl Tables {
    /// Cost-vector id of one numbered suit (nine counts, at most 14 tiles).
    #[inline(always)]
    fn suit_id(&self, c: &[u8]) -> usize {
        let c: [usize; 9] = std::array::from_fn(|i| usize::from(c.get(i).copied().unwrap_or(0)));
        let high = c[6] + 5 * c[7] + 25 * c[8];
        let mid = c[3] + 5 * c[4] + 25 * c[5];
        let low = c[0] + 5 * c[1] + 25 * c[2];
        let s_high = (c[6] + c[7] + c[8]).min(MAX_TILES);
        let s_mid = (s_high + c[3] + c[4] + c[5]).min(MAX_TILES);
        let r = &self.suit_rank3;
        let rank = r[2][0][high.min(124)] + r[1][s_high][mid.min(124)] + r[0][s_mid][low.min(124)];
        usize::from(self.suit_ids.get(rank as usize).copied().unwrap_or(0))
    }

    /// Cost-vector id of the seven honours.
    #[inline(always)]
    fn honour_id(&self, c: &[u8]) -> usize {
        let key: u16 = c
            .iter()
            .map(|&x| HONOUR_WEIGHT[usize::from(x).min(4)])
            .sum();
        usize::from(self.honour_ids[usize::from(key) & 4095])
    }
}

/// Sizes of the shanten tables: (suit patterns, honour patterns, bytes of
/// the hot-path tables).
pub fn shanten_table_stats() -> (usize, usize, usize) {
    let t = tables();
    let bytes = std::mem::size_of_val(&*t.suit_rank3)
        + t.suit_ids.len()
        + t.honour_ids.len()
        + std::mem::size_of_val(&*t.suit_pair)
        + std::mem::size_of_val(&*t.suit_honour)
        + std::mem::size_of_val(&*t.suit_vectors)
        + std::mem::size_of_val(&*t.honour_vectors);
    (t.patterns.0, t.patterns.1, bytes)
}

/// Min-plus product of two cost vectors: `r[m + 5p]` is the least
/// `a[m1 + 5p1] + b[m2 + 5p2]` with `m1 + m2 = m`, `p1 + p2 = p`. Fixed
/// bounds so that it unrolls; costs are at most 14, so sums fit in `u8`.
#[inline(always)]
fn combine(a: &Costs, b: &Costs) -> Costs {
    let mut r = [0u8; 10];
    for k in 0..5 {
        let mut r0 = u8::MAX;
        let mut r1 = u8::MAX;
        for j in 0..=k {
            r0 = r0.min(a[j] + b[k - j]);
            r1 = r1.min(a[j + 5] + b[k - j]).min(a[j] + b[k - j + 5]);
        }
        r[k] = r0;
        r[k + 5] = r1;
    }
    r
}

#[inline]
pub(crate) fn standard_shanten_counts(counts: &[u8; TILE_KINDS], total: usize) -> i8 {
    let t = tables();
    let melds = (total / 3).min(4);
    let (man, pin) = (t.suit_id(&counts[0..9]), t.suit_id(&counts[9..18]));
    let (sou, honours) = (t.suit_id(&counts[18..27]), t.honour_id(&counts[27..34]));
    // Two tabulated products, then one pair between them.
    let x = &t.suit_pair[man * t.suit_vectors.len() + pin];
    let y = &t.suit_honour[sou * t.honour_vectors.len() + honours];
    let mut best = u8::MAX;
    for m in 0..=melds {
        let rest = melds - m;
        best = best.min(x[m] + y[rest + 5]).min(x[m + 5] + y[rest]);
    }
    best as i8 - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_matches_build_order() {
        let honours = SuitTable::<7>::build(false);
        assert_eq!(tables().patterns, (405_350, 43_130));
        // Spot-check: rank is a bijection onto 0..len in index order.
        let mut expected = 0usize;
        for idx in 0..5usize.pow(7) {
            let d: [u8; 7] = std::array::from_fn(|i| (idx / 5usize.pow(i as u32) % 5) as u8);
            if d.iter().map(|&c| usize::from(c)).sum::<usize>() <= MAX_TILES {
                assert_eq!(honours.rank(&d), expected);
                expected += 1;
            }
        }
        assert_eq!(expected, honours.costs.len());
    }

    #[test]
    fn packing_round_trips() {
        // The build debug-asserts this for every entry; check a few by hand too.
        for c in [
            [0, 0, 2, 5, 8, 0, 2, 4, 7, 10],
            [0, 3, 6, 9, 12, 2, 5, 8, 11, 14],
        ] {
            assert_eq!(unpack(pack(&c)), c);
        }
        let t = tables();
        assert_eq!(
            t.suit_vectors[t.suit_id(&[4, 0, 0, 0, 0, 0, 0, 0, 0])],
            [0, 0, 2, 5, 8, 0, 2, 4, 7, 10]
        );
        assert_eq!(
            t.honour_vectors[t.honour_id(&[0; 7])],
            [0, 3, 6, 9, 12, 2, 5, 8, 11, 14]
        );
    }
}
