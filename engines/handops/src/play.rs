//! `PlayKind` and `Play`: a classified set of cards and how plays compare.

use std::fmt;

use super::cards::CardsVector;
use super::rank::Rank;

/// The type of a play. The declaration order is the order of
/// [`legal_plays`](super::legal_plays) output.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum PlayKind {
    /// One card.
    Single,
    /// Two cards of one rank.
    Pair,
    /// Three cards of one rank.
    Trio,
    /// A trio plus one card of another rank.
    TrioWithSingle,
    /// A trio plus a pair of another rank.
    TrioWithPair,
    /// 5..=12 consecutive single ranks within `3`..`A`.
    ChainOfSingles,
    /// 3..=10 consecutive pairs within `3`..`A`.
    ChainOfPairs,
    /// 2..=6 consecutive trios within `3`..`A` ("plane without wings").
    ChainOfTrios,
    /// 2..=5 consecutive trios plus as many single kickers.
    AirplaneWithSingles,
    /// 2..=4 consecutive trios plus as many pairs of distinct ranks.
    AirplaneWithPairs,
    /// Four of a rank plus two single kickers.
    FourWithTwoSingles,
    /// Four of a rank plus two pairs of distinct ranks.
    FourWithTwoPairs,
    /// Four of a rank.
    Bomb,
    /// Both jokers.
    Rocket,
}

impl PlayKind {
    /// Every kind, in declaration order.
    pub const ALL: [PlayKind; 14] = [
        PlayKind::Single,
        PlayKind::Pair,
        PlayKind::Trio,
        PlayKind::TrioWithSingle,
        PlayKind::TrioWithPair,
        PlayKind::ChainOfSingles,
        PlayKind::ChainOfPairs,
        PlayKind::ChainOfTrios,
        PlayKind::AirplaneWithSingles,
        PlayKind::AirplaneWithPairs,
        PlayKind::FourWithTwoSingles,
        PlayKind::FourWithTwoPairs,
        PlayKind::Bomb,
        PlayKind::Rocket,
    ];

    /// A stable snake_case name, e.g. `"trio_with_single"`.
    pub const fn name(self) -> &'static str {
        match self {
            PlayKind::Single => "single",
            PlayKind::Pair => "pair",
            PlayKind::Trio => "trio",
            PlayKind::TrioWithSingle => "trio_with_single",
            PlayKind::TrioWithPair => "trio_with_pair",
            PlayKind::ChainOfSingles => "chain_of_singles",
            PlayKind::ChainOfPairs => "chain_of_pairs",
            PlayKind::ChainOfTrios => "chain_of_trios",
            PlayKind::AirplaneWithSingles => "airplane_with_singles",
            PlayKind::AirplaneWithPairs => "airplane_with_pairs",
            PlayKind::FourWithTwoSingles => "four_with_two_singles",
            PlayKind::FourWithTwoPairs => "four_with_two_pairs",
            PlayKind::Bomb => "bomb",
            PlayKind::Rocket => "rocket",
        }
    }

    /// Bomb or rocket: the kinds that beat plays of other kinds.
    pub const fn is_bomb_like(self) -> bool {
        matches!(self, PlayKind::Bomb | PlayKind::Rocket)
    }

    /// The allowed `chain_len` range of this kind (`1..=1` for non-chains).
    pub const fn chain_len_range(self) -> (u8, u8) {
        match self {
            PlayKind::ChainOfSingles => (5, 12),
            PlayKind::ChainOfPairs => (3, 10),
            PlayKind::ChainOfTrios => (2, 6),
            PlayKind::AirplaneWithSingles => (2, 5),
            PlayKind::AirplaneWithPairs => (2, 4),
            _ => (1, 1),
        }
    }
}

impl fmt::Display for PlayKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A valid play: its kind, the rank that decides comparisons, the chain
/// length and the cards.
///
/// - `key`: the lowest rank of a chain or airplane, the rank of the single /
///   pair / trio / four (never a kicker); `B` for the rocket.
/// - `chain_len`: the number of consecutive key ranks for the chain and
///   airplane kinds, 1 for every other kind.
///
/// Plays come from [`classify`](super::classify), [`legal_plays`](super::legal_plays)
/// and [`beating_plays`](super::beating_plays); building one by hand with
/// inconsistent fields is allowed but gives meaningless comparisons.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Play {
    pub kind: PlayKind,
    pub key: Rank,
    pub chain_len: u8,
    pub cards: CardsVector,
}

const _: () = assert!(std::mem::size_of::<Play>() <= 16);

impl Play {
    /// Whether `self` may be played on top of `other`: the rocket beats
    /// everything; a bomb beats every non-bomb and every lower bomb; otherwise
    /// both must have the same kind and chain length and `self` a higher key
    /// (kickers never matter).
    #[inline]
    pub const fn beats(&self, other: &Play) -> bool {
        match (self.kind, other.kind) {
            (_, PlayKind::Rocket) => false,
            (PlayKind::Rocket, _) => true,
            (PlayKind::Bomb, PlayKind::Bomb) => self.key as u8 > other.key as u8,
            (PlayKind::Bomb, _) => true,
            (_, PlayKind::Bomb) => false,
            (a, b) => {
                a as u8 == b as u8
                    && self.chain_len == other.chain_len
                    && self.key as u8 > other.key as u8
            }
        }
    }
}

impl fmt::Display for Play {
    /// The cards in canonical text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.cards.fmt(f)
    }
}
