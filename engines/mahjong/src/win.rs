//! Win check: every decomposition of a complete hand, and a fast yes/no.

use std::cmp::Ordering;
use std::fmt;
use std::ops::Deref;

use super::counts::TileCounts;
use super::tile::{Tile, TILE_KINDS};
use super::win_table::{shape_key, shape_key_positions, WinTable};

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
    (may_be_standard(counts) && WinTable::get().contains(shape_key(counts)))
        || is_seven_pairs(counts)
        || thirteen_orphans_pair(counts).is_some()
}

/// Cheap necessary condition for a standard win, to skip the key for most
/// non-winning hands: no honour held once or four times (honours only form
/// pairs and triplets), and each suit's tile count is 0 or 2 modulo 3.
#[inline]
fn may_be_standard(counts: &[u8; TILE_KINDS]) -> bool {
    let mut bad = 0u8;
    for &c in &counts[27..] {
        // Bit c of 0b10010 is set for c = 1 and c = 4.
        bad |= 0b1_0010u8.checked_shr(u32::from(c)).unwrap_or(0) & 1;
    }
    let suit_ok = |s: &[u8]| s.iter().sum::<u8>() % 3 != 1;
    bad == 0 && suit_ok(&counts[0..9]) && suit_ok(&counts[9..18]) && suit_ok(&counts[18..27])
}

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
