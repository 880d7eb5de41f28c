//! The engine's error type.

use super::rules::Rule;
use super::tile::{format_tiles, Tile};

/// Everything that can be wrong with the input of the engine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Text that is not a tile (`k1`..`k31`, `b..`, `o..`, `r..`, ..., `J`).
    #[error(
        "unknown tile {text:?}: expected a colour letter (k b o r g p y w) and a number, or J"
    )]
    UnknownTile { text: String },
    // `position` below is the 0-based index of the offending tile in the
    // input (for a move: the table's tiles, then the rack's).
    /// A number tile whose number is outside `1..=numbers`.
    #[error("tile {tile} is outside the rule set: numbers are 1..={numbers}")]
    NumberOutOfRange {
        tile: Tile,
        position: usize,
        numbers: u8,
    },
    /// A number tile whose colour is not used by the rule set.
    #[error("tile {tile} is outside the rule set: it has {colours} colours")]
    ColourOutOfRange {
        tile: Tile,
        position: usize,
        colours: u8,
    },
    /// A copy of a number tile beyond the rule set's count.
    #[error(
        "tile {tile} appears {} times, but there are only {copies} copies of it",
        u32::from(*copies) + 1
    )]
    TooManyCopies {
        tile: Tile,
        position: usize,
        copies: u8,
    },
    /// A joker beyond the rule set's count.
    #[error("{} jokers given, but there are only {jokers}", u32::from(*jokers) + 1)]
    TooManyJokers { position: usize, jokers: u8 },
    /// The table tiles do not split into valid melds; `leftover` are tiles left
    /// out of a largest valid partial arrangement.
    #[error("the table tiles do not form valid melds; no meld for: {}", format_tiles(.leftover))]
    TableNotValid { leftover: Vec<Tile> },
    /// A rule-set parameter outside what the engine supports (`value` as given).
    #[error("{rule} = {value} is outside the supported range {min}..={max}")]
    RuleOutOfRange {
        rule: Rule,
        value: u32,
        min: u32,
        max: u32,
    },
    /// A rule set whose search state does not fit the engine's compact encoding.
    #[error("rule set too large for the solver: {states} run states per colour ({bits} key bits)")]
    RuleSetTooLarge { states: usize, bits: u32 },
}

impl Error {
    /// The 0-based position of the offending tile in the input, for errors
    /// about one tile.
    pub fn position(&self) -> Option<usize> {
        match self {
            Error::NumberOutOfRange { position, .. }
            | Error::ColourOutOfRange { position, .. }
            | Error::TooManyCopies { position, .. }
            | Error::TooManyJokers { position, .. } => Some(*position),
            _ => None,
        }
    }
}
