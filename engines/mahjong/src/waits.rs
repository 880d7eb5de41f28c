//! Waits: the tiles that complete a hand one tile short.

use super::counts::TileCounts;
use super::error::HandError;
use super::tile::Tile;
use super::win::is_win_counts;

/// A tile that completes the hand, and how many copies of it are unseen
/// from the hand's point of view (4 minus the copies it holds).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Wait {
    pub tile: Tile,
    pub unseen: u8,
}

/// The waits of a hand of 1, 4, 7, 10 or 13 tiles, in tile order: every tile
/// whose addition completes it in any form (standard; seven pairs and thirteen
/// orphans for 13 tiles). A tile the hand already holds four of is no wait.
pub fn waits(hand: &TileCounts) -> Result<Vec<Wait>, HandError> {
    let total = hand.total();
    if total % 3 != 1 {
        return Err(HandError::NotOneShort { total });
    }
    Ok(Tile::all()
        .filter(|&t| hand.count(t) < 4)
        .filter(|&t| is_win_counts(&hand.raw_with_tile(t)))
        .map(|t| Wait {
            tile: t,
            unseen: 4 - hand.count(t),
        })
        .collect())
}
