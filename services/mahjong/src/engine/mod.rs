//! Pure mahjong engine: notation, win check with every decomposition,
//! shanten and waits. No I/O, no transport types.
//!
//! Tiles are ids 0..=33 ([`Tile`]); a concealed hand part is a validated
//! [`TileCounts`] (34 counts). See the module docs of each function.

mod counts;
mod error;
mod shanten;
mod tile;
mod waits;
mod win;
mod win_table;

pub use counts::{Hand, TileCounts};
pub use error::HandError;
pub use shanten::{shanten, shanten_table_stats, standard_shanten, Shanten};
pub use tile::{Suit, Tile, TILE_KINDS};
pub use waits::{waits, Wait};
pub use win::{check_win, decompositions, is_win, Decomposition, Form, TileList, WinResult};
pub use win_table::{table_stats as win_table_stats, TableStats};
