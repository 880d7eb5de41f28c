//! Errors for raw input that does not make a valid `CardsVector` or `Rank`.

use super::rank::Rank;

/// Why some raw input is not a valid set of Dou Dizhu cards.
/// Every variant carries the offending item.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum CardsError {
    /// Text that is no rank (`position` is the 0-based character index in the input).
    #[error(
        "unknown rank {text:?} at position {position} (expected one of 3456789TJQKA2BR or 10)"
    )]
    UnknownRank { text: String, position: usize },

    /// A card in text that would be copy number `max + 1` of its rank.
    #[error("too many {rank}: the card at position {position} would be copy {} but a deck holds at most {max}", *max as u32 + 1)]
    TooManyCopies {
        rank: Rank,
        position: usize,
        max: u8,
    },

    /// A count (e.g. from `from_counts` or `with_count`) above what one deck holds.
    #[error("too many {rank}: count {count}, a deck holds at most {max}")]
    TooMany { rank: Rank, count: u8, max: u8 },

    /// A packed value with bits set in nibble 15 (bits 60..63), which must be zero.
    #[error("packed value {packed:#018x} has bits set in the reserved nibble 15")]
    ReservedNibble { packed: u64 },

    /// A packed nibble above the most copies of its rank.
    #[error("packed nibble of rank {rank} holds {value}, at most {max} allowed")]
    NibbleOverflow { rank: Rank, value: u8, max: u8 },
}
