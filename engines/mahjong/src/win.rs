//! Win check: every decomposition of a complete hand, and a fast yes/no.

use std::cmp::Ordering;
use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

use super::counts::TileCounts;
use super::tile::{Tile, TILE_KINDS};
use super::win_table::{shape_key_positions, WinTable};

/// The shape of a complete hand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Form {
    /// A pair plus melds (triplets and sequences), `3k+2` tiles.
    Standard,
    /// Seven distinct pairs (14 concealed tiles).
    SevenPairs,
    /// One of each terminal and honour plus one duplicate (14 concealed tiles).
    ThirteenOrphans,
}

/// A short list of tiles (at most 7) stored inline.
#[derive(Copy, Clone, Default)]
pub struct TileList {
    len: u8,
    tiles: [Tile; 7],
}

impl TileList {
    /// Maximum number of tiles.
    pub const CAPACITY: usize = 7;

    /// An empty list.
    pub const fn new() -> TileList {
        TileList {
            len: 0,
            tiles: [Tile::from_index(0); 7],
        }
    }

    /// Appends `tile`; ignored when full (callers never exceed 7).
    pub(crate) fn push(&mut self, tile: Tile) {
        debug_assert!(usize::from(self.len) < Self::CAPACITY);
        if let Some(slot) = self.tiles.get_mut(usize::from(self.len)) {
            *slot = tile;
            self.len += 1;
        }
    }

    /// The tiles as a slice.
    pub fn as_slice(&self) -> &[Tile] {
        &self.tiles[..usize::from(self.len)]
    }
}

impl Deref for TileList {
    type Target = [Tile];

    fn deref(&self) -> &[Tile] {
        self.as_slice()
    }
}

impl PartialEq for TileList {
    fn eq(&self, other: &TileList) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for TileList {}

impl std::hash::Hash for TileList {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl PartialOrd for TileList {
    fn partial_cmp(&self, other: &TileList) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for TileList {
    fn cmp(&self, other: &TileList) -> Ordering {
        self.as_slice().cmp(other.as_slice())
    }
}

impl fmt::Debug for TileList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl FromIterator<Tile> for TileList {
    fn from_iter<I: IntoIterator<Item = Tile>>(iter: I) -> TileList {
        let mut list = TileList::new();
        for t in iter.into_iter().take(Self::CAPACITY) {
            list.push(t);
        }
        list
    }
}

/// One way to read a complete hand.
///
/// * `Standard`: `pair`, `triplets` (the tile of each triplet) and `sequences`
///   (the first tile of each sequence), each list ascending; `pairs` is empty.
/// * `SevenPairs`: `pairs` holds the seven pair tiles ascending, `pair` is the
///   lowest of them; no melds.
/// * `ThirteenOrphans`: `pair` is the duplicated tile; no melds, `pairs` empty.
///
/// Decompositions order by (`form`, `pair`, `triplets`, `sequences`, `pairs`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Decomposition {
    pub form: Form,
    pub pair: Tile,
    pub triplets: TileList,
    pub sequences: TileList,
    pub pairs: TileList,
}

/// The answer of [`check_win`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WinResult {
    /// Whether the hand is complete in any form.
    pub win: bool,
    /// Every decomposition, in [`Decomposition`] order, without duplicates.
    pub decompositions: Vec<Decomposition>,
}

/// Every way `hand` is complete: standard forms (pair plus `total / 3` melds;
/// the rest of the 4 melds count as called), and for 14 tiles also seven
/// distinct pairs and thirteen orphans. A hand of `3k+1` tiles is never complete.
///
/// ```
/// use deckhand_mahjong::{check_win, Form, TileCounts};
///
/// let hand: TileCounts = "111222333m44455p".parse()?;
/// let result = check_win(&hand);
/// assert!(result.win);
/// // 111m 222m 333m as triplets or as three 123m sequences; 444p + 55p.
/// assert_eq!(result.decompositions.len(), 2);
/// assert!(result.decompositions.iter().all(|d| d.form == Form::Standard));
/// assert_eq!(result.decompositions[0].triplets.len(), 4);
/// # Ok::<(), deckhand_mahjong::HandError>(())
/// ```
pub fn check_win(hand: &TileCounts) -> WinResult {
    let decompositions = decompositions(hand);
    WinResult {
        win: !decompositions.is_empty(),
        decompositions,
    }
}

/// The decompositions of [`check_win`] alone.
pub fn decompositions(hand: &TileCounts) -> Vec<Decomposition> {
    let counts = hand.as_array();
    let mut out = Vec::new();
    let mut positions = [0u8; 14];
    let (key, n) = shape_key_positions(counts, &mut positions);
    let tile_at = |i: usize| Tile::from_index(usize::from(positions[i.min(n.saturating_sub(1))]));
    for &packed in WinTable::get().lookup(key) {
        out.push(Decomposition {
            form: Form::Standard,
            pair: tile_at(packed.pair()),
            triplets: packed.triplets().map(tile_at).collect(),
            sequences: packed.sequences().map(tile_at).collect(),
            pairs: TileList::new(),
        });
    }
    if is_seven_pairs(counts) {
        let pairs: TileList = Tile::all().filter(|t| counts[t.index()] == 2).collect();
        out.push(Decomposition {
            form: Form::SevenPairs,
            pair: pairs.first().copied().unwrap_or_default(),
            triplets: TileList::new(),
            sequences: TileList::new(),
            pairs,
        });
    }
    if let Some(pair) = thirteen_orphans_pair(counts) {
        out.push(Decomposition {
            form: Form::ThirteenOrphans,
            pair,
            triplets: TileList::new(),
            sequences: TileList::new(),
            pairs: TileList::new(),
        });
    }
    out
}

/// Whether `hand` is complete in any form (the hot path of [`check_win`]).
#[inline]
pub fn is_win(hand: &TileCounts) -> bool {
    is_win_counts(hand.as_array())
}

/// [`is_win`] on raw counts known to hold at most 4 of each tile and at most
/// 14 tiles.
#[inline]
pub(crate) fn is_win_counts(counts: &[u8; TILE_KINDS]) -> bool {
    is_standard_win(counts) || is_seven_pairs(counts) || thirteen_orphans_pair(counts).is_some()
}

/// Number of count patterns of one numbered suit in base 5.
const SUIT_PATTERNS: usize = 5usize.pow(9);

/// Two bits per numbered-suit pattern (base-5 index `k = sum c_i 5^i`, bits
/// `2k` and `2k + 1`): `0b01` when the suit alone is melds only, `0b11` when
/// it is melds plus one pair (at most 14 tiles), else `0b00`. 488,282
/// bytes, built at first use from the melds and pairs.
#[inline]
fn complete_suits() -> &'static [u64] {
    static BITS: OnceLock<Box<[u64]>> = OnceLock::new();
    BITS.get_or_init(|| {
        let mut bits = vec![0u64; (2 * SUIT_PATTERNS).div_ceil(64)];
        let mut counts = [0u8; 9];
        mark_complete(&mut counts, 0, 0, &mut bits);
        bits.into_boxed_slice()
    })
}

/// Marks `counts` with every further choice of up to `4 - melds` melds
/// (kinds ascending from `start`: 9 triplets, then 7 sequences), each
/// alone and with each pair.
fn mark_complete(counts: &mut [u8; 9], start: usize, melds: usize, bits: &mut [u64]) {
    let key = |c: &[u8; 9]| c.iter().rev().fold(0usize, |k, &x| 5 * k + usize::from(x));
    let mut set = |c: &[u8; 9], value: u64| {
        let k = 2 * key(c);
        if let Some(word) = bits.get_mut(k / 64) {
            *word |= value << (k % 64);
        }
    };
    set(counts, 0b01);
    for p in 0..9 {
        if counts[p] <= 2 {
            counts[p] += 2;
            set(counts, 0b11);
            counts[p] -= 2;
        }
    }
    if melds == 4 {
        return;
    }
    for kind in start..16 {
        let tiles: &[usize] = if kind < 9 {
            &[kind, kind, kind]
        } else {
            &[kind - 9, kind - 8, kind - 7]
        };
        for &t in tiles {
            counts[t] += 1;
        }
        if counts.iter().all(|&c| c <= 4) {
            mark_complete(counts, kind, melds + 1, bits);
        }
        for &t in tiles {
            counts[t] -= 1;
        }
    }
}

/// Standard form: every numbered suit complete on its own (bit table), every
/// honour held 0, 2 or 3 times, and exactly one pair in all (a suit of
/// `3k + 2` tiles holds it, or an honour held twice).
#[inline]
fn is_standard_win(counts: &[u8; TILE_KINDS]) -> bool {
    let bits = complete_suits();
    let mut pairs = 0u32;
    let mut ok = true;
    for suit in counts[..27].chunks_exact(9) {
        let c: [usize; 9] = std::array::from_fn(|i| usize::from(suit.get(i).copied().unwrap_or(0)));
        // Base-5 index in three independent parts (a shorter dependency chain).
        let key = 2
            * ((c[0] + 5 * c[1] + 25 * c[2])
                + 125 * (c[3] + 5 * c[4] + 25 * c[5])
                + 15625 * (c[6] + 5 * c[7] + 25 * c[8]));
        let state = bits.get(key / 64).map_or(0, |w| w >> (key % 64) & 3) as u32;
        ok &= state != 0;
        pairs += state >> 1;
    }
    // The seven honours are bytes 1..8 of the word starting at 9s.
    let mut word = [0u8; 8];
    word.copy_from_slice(&counts[26..34]);
    let x = u64::from_le_bytes(word) & !0xff;
    // Per lane: held once (bit 0 without bit 1) or four times (bit 2) is
    // bad; twice (bit 1 alone) is a pair. Counts are at most 4.
    let bad = ((x & !(x >> 1)) | (x >> 2)) & HONOUR_LANES;
    let honour_pairs = (x >> 1) & !x & HONOUR_LANES;
    pairs += (honour_pairs.wrapping_mul(LANES) >> 56) as u32;
    ok && bad == 0 && pairs == 1
}

/// One bit per byte lane.
const LANES: u64 = 0x0101_0101_0101_0101;
/// Lanes 1..8: the honours in the word starting at 9s.
const HONOUR_LANES: u64 = LANES & !0xff;

/// Seven distinct pairs: seven tiles held exactly twice. With at most 14
/// tiles in the hand, nothing else can be held.
#[inline]
fn is_seven_pairs(counts: &[u8; TILE_KINDS]) -> bool {
    counts.iter().map(|&c| u8::from(c == 2)).sum::<u8>() == 7
}

const ORPHANS: [usize; 13] = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];

/// The duplicated tile of a thirteen-orphans hand, if `counts` is one.
#[inline]
fn thirteen_orphans_pair(counts: &[u8; TILE_KINDS]) -> Option<Tile> {
    // Cheap early exit for most hands.
    if counts[0] == 0 || counts[33] == 0 {
        return None;
    }
    let mut pair = None;
    let mut total = 0u32;
    for &i in &ORPHANS {
        match counts[i] {
            1 => {}
            2 if pair.is_none() => pair = Some(Tile::from_index(i)),
            _ => return None,
        }
        total += u32::from(counts[i]);
    }
    // No tile outside the orphans: all 14 tiles are accounted for above.
    if total == 14 && counts.iter().map(|&c| u32::from(c)).sum::<u32>() == 14 {
        pair
    } else {
        None
    }
}
