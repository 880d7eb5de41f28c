//! Pure Rummikub engine: tile notation, exact arrangement of a tile multiset
//! into runs and groups, and the best move from a rack onto a table.
//!
//! ```
//! use deckhand_rummikub::{arrange, parse_tiles, RuleSet};
//!
//! let tiles = parse_tiles("k1 k2 k3 b5 o5 r5 J").unwrap();
//! let melds = arrange(&RuleSet::default(), &tiles).unwrap().unwrap();
//! assert_eq!(melds.len(), 2);
//! ```

mod counts;
mod error;
mod groups;
mod meld;
mod memo;
mod rules;
mod runs;
mod solver;
mod tile;

pub use counts::TileCounts;
pub use error::Error;
pub use meld::{Meld, MeldKind};
pub use rules::{Objective, RawRules, Rule, RuleSet, JOKER_VALUE};
pub use solver::{arrange, best_move, BestMove, SearchOrder, Solver};
pub use tile::{format_tiles, parse_tiles, Colour, Tile};
