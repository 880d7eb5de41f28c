//! `Rank`: the 15 Dou Dizhu ranks, low to high.

use std::fmt;
use std::str::FromStr;

use super::error::CardsError;

/// A Dou Dizhu rank. Order (and `index()`): `3 4 5 6 7 8 9 T J Q K A 2 B R`,
/// where `B` is the black (small) joker and `R` the red (big) joker.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum Rank {
    Three = 0,
    Four,
    Five,
    Six,
    Seven,
    Eight,
    Nine,
    Ten,
    Jack,
    Queen,
    King,
    Ace,
    Two,
    BlackJoker,
    RedJoker,
}

impl Rank {
    /// Number of ranks.
    pub const COUNT: usize = 15;

    /// Every rank, low to high.
    pub const ALL: [Rank; 15] = [
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
        Rank::Two,
        Rank::BlackJoker,
        Rank::RedJoker,
    ];

    /// Canonical letters, indexed by `index()`.
    const CHARS: [char; 15] = [
        '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A', '2', 'B', 'R',
    ];

    /// Index 0..=14 (also the nibble of the rank in a `CardsVector`).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The rank with this index, `None` when `index > 14`.
    #[inline]
    pub const fn from_index(index: usize) -> Option<Rank> {
        if index < Self::COUNT {
            Some(Self::ALL[index])
        } else {
            None
        }
    }

    /// Canonical letter: one of `3456789TJQKA2BR`.
    #[inline]
    pub const fn to_char(self) -> char {
        Self::CHARS[self.index()]
    }

    /// Parses one rank letter (`T`/`J`/`Q`/`K`/`A`/`B`/`R` also lower case).
    /// `10` is two characters; `FromStr` accepts it.
    pub const fn from_char(c: char) -> Option<Rank> {
        Some(match c {
            '3' => Rank::Three,
            '4' => Rank::Four,
            '5' => Rank::Five,
            '6' => Rank::Six,
            '7' => Rank::Seven,
            '8' => Rank::Eight,
            '9' => Rank::Nine,
            'T' | 't' => Rank::Ten,
            'J' | 'j' => Rank::Jack,
            'Q' | 'q' => Rank::Queen,
            'K' | 'k' => Rank::King,
            'A' | 'a' => Rank::Ace,
            '2' => Rank::Two,
            'B' | 'b' => Rank::BlackJoker,
            'R' | 'r' => Rank::RedJoker,
            _ => return None,
        })
    }

    /// Most copies of this rank in one deck: 4, or 1 for a joker.
    #[inline]
    pub const fn max_copies(self) -> u8 {
        if self.is_joker() {
            1
        } else {
            4
        }
    }

    /// `B` or `R`.
    #[inline]
    pub const fn is_joker(self) -> bool {
        matches!(self, Rank::BlackJoker | Rank::RedJoker)
    }

    /// Whether the rank may be part of a chain (`3` to `A`; never `2`, `B`, `R`).
    #[inline]
    pub const fn is_chainable(self) -> bool {
        self.index() <= Rank::Ace.index()
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_char())
    }
}

impl TryFrom<char> for Rank {
    type Error = CardsError;

    fn try_from(c: char) -> Result<Self, Self::Error> {
        Rank::from_char(c).ok_or_else(|| CardsError::UnknownRank {
            text: c.to_string(),
            position: 0,
        })
    }
}

impl FromStr for Rank {
    type Err = CardsError;

    /// One rank letter, or `10` for `T`; surrounding whitespace is ignored.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let mut chars = t.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(c), None, _) => Rank::from_char(c),
            (Some('1'), Some('0'), None) => Some(Rank::Ten),
            _ => None,
        }
        .ok_or_else(|| CardsError::UnknownRank {
            text: t.to_string(),
            position: 0,
        })
    }
}
