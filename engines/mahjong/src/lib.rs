//! Pure mahjong engine: MPSZ notation, win check with every decomposition,
//! shanten and waits. No I/O, no transport types.
//!
//! # Vocabulary
//!
//! * [`Tile`]: id 0..=33 (0-8 man, 9-17 pin, 18-26 sou, 27-33 honours
//!   E S W N white green red, written `1z`..`7z`).
//! * [`TileCounts`] (alias [`Hand`]): a validated concealed part as 34
//!   counts, at most four copies each, 1, 2, 4, 5, 7, 8, 10, 11, 13 or 14
//!   tiles (the rest of a 14-tile hand is in `(14 - total) / 3` called melds).
//!   Built from text (`"123m456p789s1122z".parse()`, `0m/0p/0s` red fives read
//!   as fives), from `[u8; 34]`, or from a byte slice of length 34; every
//!   rejection is a [`HandError`] naming the offending item.
//!
//! # Operations
//!
//! * [`check_win`] / [`decompositions`]: every [`Decomposition`] of a complete
//!   part (standard; seven distinct pairs and thirteen orphans for 14 tiles),
//!   in a fixed order without duplicates. [`is_win`] is the fast yes/no.
//! * [`shanten`]: standard, seven pairs, thirteen orphans and minimum;
//!   [`standard_shanten`] is the fast path. Exact definition (four-copy
//!   aware, as the `xiangting` crate): see the `shanten` module.
//! * [`waits`]: the tiles completing a part one tile short, with unseen copies.
//! * [`score`]: riichi scoring of a validated [`WinSituation`] (built from a
//!   [`WinInput`] with `try_from`): yaku, dora, fu with its breakdown, the best
//!   reading, points and limit; rules and their defaults on [`Rules`].
//!
//! # Tables (built from first principles at first use, `OnceLock`)
//!
//! * Win check: a shape key (blocks of consecutive held tiles, counts and
//!   block ends as bits, as in the table-driven agari check) maps to the
//!   decompositions of that shape. 9,306 keys (complete standard shapes of
//!   2, 5, 8, 11 and 14 tiles) holding 9,760 decompositions, 301,184 bytes
//!   (32,768 hash slots of 8 bytes plus 4 bytes per decomposition).
//!   [`win_table_stats`] reports these figures. [`is_win`] does not need the
//!   decompositions: two bits per numbered-suit pattern by base-5 index
//!   (melds only / melds plus a pair; 488,282 bytes), the honours checked
//!   eight counts at a time.
//! * Shanten: per-suit costs of reaching `m` melds plus `p` pairs for all
//!   405,350 suit patterns and 43,130 honour patterns of at most 14 tiles.
//!   Only 126 (suits) and 55 (honours) distinct cost vectors occur, so the
//!   hot path holds a one-byte vector id per suit pattern, honour ids by
//!   count histogram, and the tabulated min-plus products of id pairs:
//!   661,816 bytes ([`shanten_table_stats`]).
//!
//! # Example
//!
//! ```
//! use deckhand_mahjong::{is_win, shanten, waits, TileCounts};
//!
//! let hand: TileCounts = "123m456p789s11z234s".parse().unwrap();
//! assert!(is_win(&hand));
//! let tenpai: TileCounts = "123m456p789s11z23s".parse().unwrap();
//! let winning: Vec<String> = waits(&tenpai).unwrap().iter().map(|w| w.tile.to_string()).collect();
//! assert_eq!(winning, ["1s", "4s"]);
//! assert_eq!(shanten(&tenpai).minimum, 0);
//! ```
//!
//! The `tests/` suite checks both against independent brute-force references
//! and the `xiangting` crate; `benches/mahjong.rs` measures them.

mod counts;
mod error;
mod score;
mod shanten;
mod tile;
mod waits;
mod win;
mod win_table;

pub use counts::{Hand, TileCounts};
pub use error::HandError;
pub use score::{
    hand_points, parse_tiles, score, score_input, Dora, FuItem, FuReason, Group, GroupKind, Limit,
    Meld, MeldKind, Points, Riichi, Rules, Score, ScoreError, Verdict, WaitShape, WinInput,
    WinSituation, WinTiming, Wind, Yaku, YakuHan,
};
pub use shanten::{shanten, shanten_table_stats, standard_shanten, Shanten};
pub use tile::{Suit, Tile, TILE_KINDS};
pub use waits::{waits, Wait};
pub use win::{check_win, decompositions, is_win, Decomposition, Form, TileList, WinResult};
pub use win_table::{table_stats as win_table_stats, TableStats};
