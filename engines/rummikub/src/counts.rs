//! [`TileCounts`]: a multiset of tiles validated against a [`RuleSet`].

use super::error::Error;
use super::rules::RuleSet;
use super::tile::{Colour, Tile};

/// A multiset of tiles that fits a [`RuleSet`]: every number tile exists in
/// it and appears at most `copies` times, and there are at most `jokers` jokers.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct TileCounts {
    /// `counts[tile id]`; index 0 holds the jokers.
    counts: [u8; 256],
    total: u32,
}

impl Default for TileCounts {
    /// The empty multiset (valid under every rule set).
    fn default() -> TileCounts {
        TileCounts {
            counts: [0; 256],
            total: 0,
        }
    }
}

impl TileCounts {
    /// Collects and validates `tiles`; an error names the first offending
    /// tile by its position in `tiles` (for a copy or joker too many: the
    /// first one beyond the rule set's count).
    pub fn new(rules: &RuleSet, tiles: &[Tile]) -> Result<TileCounts, Error> {
        let mut counts = TileCounts::default();
        for (position, &tile) in tiles.iter().enumerate() {
            check_tile(rules, tile, position)?;
            counts.add(tile);
            let count = counts.get(tile);
            if tile.is_joker() && count > rules.jokers {
                return Err(Error::TooManyJokers {
                    position,
                    jokers: rules.jokers,
                });
            }
            if !tile.is_joker() && count > rules.copies {
                return Err(Error::TooManyCopies {
                    tile,
                    position,
                    copies: rules.copies,
                });
            }
        }
        Ok(counts)
    }

    fn add(&mut self, tile: Tile) {
        let slot = &mut self.counts[usize::from(tile.id())];
        *slot = slot.saturating_add(1);
        self.total += 1;
    }

    /// How many copies of `tile` the multiset holds.
    pub fn get(&self, tile: Tile) -> u8 {
        self.counts[usize::from(tile.id())]
    }

    /// Copies of the number tile `colour`/`number` (0 if no such tile).
    pub fn number(&self, colour: Colour, number: u8) -> u8 {
        Tile::new(colour, number).map_or(0, |tile| self.get(tile))
    }

    /// Number of jokers.
    pub fn jokers(&self) -> u8 {
        self.counts[0]
    }

    /// Total number of tiles.
    pub fn len(&self) -> usize {
        self.total as usize
    }

    /// Is the multiset empty?
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The distinct tiles present, number tiles in order, the joker last.
    pub fn iter_distinct(&self) -> impl Iterator<Item = Tile> + '_ {
        (1..=255u8)
            .chain(std::iter::once(0))
            .filter(|&id| self.counts[usize::from(id)] > 0)
            .filter_map(Tile::from_id)
    }

    /// Every tile, repeated by its count, sorted.
    pub fn to_vec(&self) -> Vec<Tile> {
        let mut out = Vec::with_capacity(self.len());
        for tile in self.iter_distinct() {
            out.extend(std::iter::repeat_n(tile, usize::from(self.get(tile))));
        }
        out
    }
}

impl std::fmt::Debug for TileCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TileCounts({})",
            super::tile::format_tiles(&self.to_vec())
        )
    }
}

fn check_tile(rules: &RuleSet, tile: Tile, position: usize) -> Result<(), Error> {
    if let (Some(colour), Some(number)) = (tile.colour(), tile.number()) {
        if colour.index() >= usize::from(rules.colours) {
            return Err(Error::ColourOutOfRange {
                tile,
                position,
                colours: rules.colours,
            });
        }
        if number > rules.numbers {
            return Err(Error::NumberOutOfRange {
                tile,
                position,
                numbers: rules.numbers,
            });
        }
    }
    Ok(())
}
