//! [`Meld`] and [`MeldKind`].

use std::fmt;

use super::tile::{format_tiles, Tile};

/// Run (one colour, consecutive numbers) or group (one number, distinct colours).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MeldKind {
    Run,
    Group,
}

/// A meld as found by the solver.
///
/// `tiles` are the tiles laid down (jokers stay [`Tile::JOKER`]); runs are in
/// ascending order with each joker at the position it fills, groups are in
/// colour order with jokers last. `represents[i]` is the number tile that
/// `tiles[i]` stands for (the tile itself unless it is a joker).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Meld {
    pub kind: MeldKind,
    pub tiles: Vec<Tile>,
    pub represents: Vec<Tile>,
}

impl Meld {
    /// Sum of the numbers the tiles stand for (what the meld counts for an opening).
    pub fn value(&self) -> u32 {
        self.represents
            .iter()
            .filter_map(|t| t.number())
            .map(u32::from)
            .sum()
    }

    /// Number of tiles.
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    /// Is the meld empty (never, for solver output)?
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }
}

impl fmt::Display for Meld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            MeldKind::Run => "run",
            MeldKind::Group => "group",
        };
        write!(f, "{kind}[{}]", format_tiles(&self.tiles))
    }
}
