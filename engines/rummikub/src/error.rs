//! The engine's error type.

use super::tile::{format_tiles, Tile};

/// Everything that can be wrong with the input of the engine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Text that is not a tile (`k1`..`k31`, `b..`, `o..`, `r..`, ..., `J`).
    #[error(
        "unknown tile {text:?}: expected a colour letter (k b o r g p y w) and a number, or J"
    )]
    UnknownTile { text: String },
    /// A number tile whose number is outside `1..=numbers`.
    #[error("tile {tile} is outside the rule set: numbers are 1..={numbers}")]
    NumberOutOfRange { tile: Tile, numbers: u8 },
    /// A number tile whose colour is not used by the rule set.
    #[error("tile {tile} is outside the rule set: it has {colours} colours")]
    ColourOutOfRange { tile: Tile, colours: u8 },
    /// More copies of a number tile than the rule set has.
    #[error("tile {tile} appears {count} times, but there are only {copies} copies of it")]
    TooManyCopies { tile: Tile, count: u32, copies: u8 },
    /// More jokers than the rule set has.
    #[error("{count} jokers given, but there are only {jokers}")]
    TooManyJokers { count: u32, jokers: u8 },
    /// The table tiles do not split into valid melds; `leftover` are tiles left
    /// out of a largest valid partial arrangement.
    #[error("the table tiles do not form valid melds; no meld for: {}", format_tiles(.leftover))]
    TableNotValid { leftover: Vec<Tile> },
    /// A rule-set parameter outside what the engine supports.
    #[error("rule set parameter {name} = {value} is outside the supported range {min}..={max}")]
    RuleOutOfRange {
        name: &'static str,
        value: u32,
        min: u32,
        max: u32,
    },
    /// A rule set whose search state does not fit the engine's compact encoding.
    #[error("rule set too large for the solver: {states} run states per colour ({bits} key bits)")]
    RuleSetTooLarge { states: usize, bits: u32 },
}
