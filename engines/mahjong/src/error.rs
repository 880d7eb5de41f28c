//! The engine's error type: every variant names the offending item.

use super::tile::Tile;

/// Why a tile, hand text or count array was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandError {
    /// A character (or tile text) that is not part of MPSZ notation.
    /// `position` is the 0-based character index in the input.
    #[error("unknown tile text {text:?} at position {position}")]
    UnknownTile { text: String, position: usize },
    /// Digits at the end of the text (or before another digit run) with no
    /// suit letter after them, e.g. the `12` in `123m12`.
    #[error("digits {digits:?} at position {position} have no suit letter after them")]
    MissingSuit { digits: String, position: usize },
    /// A suit letter with no digits before it, e.g. `m` in `123mm`.
    #[error("suit letter {suit:?} at position {position} has no digits before it")]
    EmptySuit { suit: char, position: usize },
    /// `8z`, `9z` or `0z`: honours are `1z`..`7z` only.
    #[error("no such honour {text:?} at position {position} (honours are 1z..7z)")]
    NoSuchHonour { text: String, position: usize },
    /// A tile id outside 0..=33.
    #[error("tile id {id} is out of range (0..=33)")]
    TileId { id: u32 },
    /// More than four copies of one tile.
    #[error("{count} copies of {tile}: at most four copies of a tile exist")]
    TooManyCopies { tile: Tile, count: u8 },
    /// A tile total that no hand form has (0, 3, 6, 9, 12 or more than 14).
    #[error(
        "{total} tiles fit no hand form (a concealed part has 1, 2, 4, 5, 7, 8, 10, 11, 13 or 14 tiles)"
    )]
    TileTotal { total: usize },
    /// A count array whose length is not 34.
    #[error("tile counts must have exactly 34 entries, got {len}")]
    CountsLength { len: usize },
    /// `waits` needs a hand one tile short of complete (1, 4, 7, 10 or 13 tiles).
    #[error("{total} tiles is not one tile short of a complete hand (1, 4, 7, 10 or 13 tiles)")]
    NotOneShort { total: usize },
}
