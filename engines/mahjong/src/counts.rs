//! `TileCounts`: a validated concealed hand as 34 per-tile counts.

use std::fmt;
use std::str::FromStr;

use super::error::HandError;
use super::tile::{tile_from_digit, Suit, Tile, TILE_KINDS};

/// A validated concealed hand part: how many of each of the 34 tiles it holds.
///
/// Invariants: every count is at most 4, and the total is one of
/// 1, 2, 4, 5, 7, 8, 10, 11, 13, 14 (a complete part `3k+2`, or one tile short
/// of it, `3k+1`, with `(14 - total) / 3` melds called).
///
/// Built from MPSZ text (`"123m456p789s1122z"`), from a `[u8; 34]`, from a byte
/// slice of length exactly 34, or from a slice of tiles.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileCounts([u8; TILE_KINDS]);

/// Another name for [`TileCounts`].
pub type Hand = TileCounts;

impl TileCounts {
    /// Validates a count array.
    pub fn new(counts: [u8; TILE_KINDS]) -> Result<TileCounts, HandError> {
        let mut total = 0usize;
        for (tile, &count) in Tile::all().zip(counts.iter()) {
            if count > 4 {
                return Err(HandError::TooManyCopies { tile, count });
            }
            total += usize::from(count);
        }
        if !(1..=14).contains(&total) || total.is_multiple_of(3) {
            return Err(HandError::TileTotal { total });
        }
        Ok(TileCounts(counts))
    }

    /// The 34 counts, indexed by tile id.
    pub const fn as_array(&self) -> &[u8; TILE_KINDS] {
        &self.0
    }

    /// Copies of `tile` in the hand.
    pub const fn count(&self, tile: Tile) -> u8 {
        self.0[tile.index()]
    }

    /// Number of tiles in the hand.
    pub fn total(&self) -> usize {
        self.0.iter().map(|&c| usize::from(c)).sum()
    }

    /// Number of melds called (not in this part): `(14 - total) / 3`.
    pub fn called_melds(&self) -> usize {
        (14 - self.total()) / 3
    }

    /// The tiles in id order, each repeated by its count.
    pub fn tiles(&self) -> impl Iterator<Item = Tile> + '_ {
        Tile::all().flat_map(move |t| std::iter::repeat_n(t, usize::from(self.count(t))))
    }

    /// The hand with one more `tile`, if that is still a valid hand
    /// (no fifth copy, at most 14 tiles, a total that fits a form).
    pub fn with_tile(&self, tile: Tile) -> Result<TileCounts, HandError> {
        let mut counts = self.0;
        counts[tile.index()] += 1;
        TileCounts::new(counts)
    }

    /// Internal: counts known valid apart from the total (used by waits).
    pub(crate) fn raw_with_tile(&self, tile: Tile) -> [u8; TILE_KINDS] {
        let mut counts = self.0;
        counts[tile.index()] += 1;
        counts
    }
}

impl TryFrom<[u8; TILE_KINDS]> for TileCounts {
    type Error = HandError;

    fn try_from(counts: [u8; TILE_KINDS]) -> Result<TileCounts, HandError> {
        TileCounts::new(counts)
    }
}

impl TryFrom<&[u8]> for TileCounts {
    type Error = HandError;

    /// A byte slice of exactly 34 counts.
    fn try_from(bytes: &[u8]) -> Result<TileCounts, HandError> {
        let counts: [u8; TILE_KINDS] = bytes
            .try_into()
            .map_err(|_| HandError::CountsLength { len: bytes.len() })?;
        TileCounts::new(counts)
    }
}

impl TryFrom<&[Tile]> for TileCounts {
    type Error = HandError;

    fn try_from(tiles: &[Tile]) -> Result<TileCounts, HandError> {
        let mut counts = [0u8; TILE_KINDS];
        for &tile in tiles {
            let c = &mut counts[tile.index()];
            *c = c.saturating_add(1);
            if *c > 4 {
                return Err(HandError::TooManyCopies { tile, count: *c });
            }
        }
        TileCounts::new(counts)
    }
}

/// Parses MPSZ text: digit runs each followed by a suit letter, e.g.
/// `123m456p789s1122z`; `0m/0p/0s` are red fives, read as fives. ASCII
/// whitespace between tiles is ignored.
impl FromStr for TileCounts {
    type Err = HandError;

    fn from_str(text: &str) -> Result<TileCounts, HandError> {
        let mut counts = [0u8; TILE_KINDS];
        // Pending digits, with the character index of each.
        let mut pending: Vec<(char, usize)> = Vec::with_capacity(14);
        for (position, c) in text.chars().enumerate() {
            if c.is_ascii_digit() {
                pending.push((c, position));
            } else if let Some(suit) = Suit::from_char(c) {
                if pending.is_empty() {
                    return Err(HandError::EmptySuit { suit: c, position });
                }
                for (digit, digit_position) in pending.drain(..) {
                    let tile = tile_from_digit(digit, suit, digit_position)?;
                    let count = &mut counts[tile.index()];
                    *count += 1;
                    if *count > 4 {
                        return Err(HandError::TooManyCopies {
                            tile,
                            count: *count,
                        });
                    }
                }
            } else if !c.is_ascii_whitespace() {
                return Err(HandError::UnknownTile {
                    text: c.to_string(),
                    position,
                });
            }
        }
        if let Some(&(_, position)) = pending.first() {
            return Err(HandError::MissingSuit {
                digits: pending.iter().map(|&(d, _)| d).collect(),
                position,
            });
        }
        TileCounts::new(counts)
    }
}

/// Canonical MPSZ text: suits in m, p, s, z order, digits ascending, no red fives.
impl fmt::Display for TileCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for suit in Suit::ALL {
            let mut any = false;
            for number in 1..=suit.size() {
                if let Some(tile) = Tile::from_suit_number(suit, number) {
                    for _ in 0..self.count(tile) {
                        write!(f, "{number}")?;
                        any = true;
                    }
                }
            }
            if any {
                write!(f, "{}", suit.char())?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for TileCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TileCounts({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        let h: TileCounts = "123m456p789s1122z".parse().unwrap();
        assert_eq!(h.total(), 13);
        assert_eq!(h.to_string(), "123m456p789s1122z");
        let red: TileCounts = "3405m".parse().unwrap();
        assert_eq!(red.to_string(), "3455m");
    }
}
