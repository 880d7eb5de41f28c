//! Vocabulary types: suits, ranks, cards, card sets, seats.
//!
//! A card id is `suit * 8 + rank` with `Ace = 0`, so within a suit a LOWER id is a
//! HIGHER card, and a hand is a `u32` bitset over those ids.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A suit, in the order S, H, D, C (index 0..3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    Spades = 0,
    Hearts = 1,
    Diamonds = 2,
    Clubs = 3,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Diamonds, Suit::Clubs];

    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn from_index(i: usize) -> Option<Suit> {
        match i {
            0 => Some(Suit::Spades),
            1 => Some(Suit::Hearts),
            2 => Some(Suit::Diamonds),
            3 => Some(Suit::Clubs),
            _ => None,
        }
    }

    pub const fn char(self) -> char {
        match self {
            Suit::Spades => 'S',
            Suit::Hearts => 'H',
            Suit::Diamonds => 'D',
            Suit::Clubs => 'C',
        }
    }

    pub const fn from_char(c: char) -> Option<Suit> {
        match c.to_ascii_uppercase() {
            'S' => Some(Suit::Spades),
            'H' => Some(Suit::Hearts),
            'D' => Some(Suit::Diamonds),
            'C' => Some(Suit::Clubs),
            _ => None,
        }
    }

    /// All eight cards of the suit.
    pub const fn cards(self) -> Cards {
        Cards(0xff << (8 * self as u32))
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// A rank, highest first: A K Q J T 9 8 7 (index 0..7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    Ace = 0,
    King = 1,
    Queen = 2,
    Jack = 3,
    Ten = 4,
    Nine = 5,
    Eight = 6,
    Seven = 7,
}

impl Rank {
    pub const ALL: [Rank; 8] = [
        Rank::Ace,
        Rank::King,
        Rank::Queen,
        Rank::Jack,
        Rank::Ten,
        Rank::Nine,
        Rank::Eight,
        Rank::Seven,
    ];

    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn from_index(i: usize) -> Option<Rank> {
        if i < 8 {
            Some(Rank::ALL[i])
        } else {
            None
        }
    }

    pub const fn char(self) -> char {
        ['A', 'K', 'Q', 'J', 'T', '9', '8', '7'][self as usize]
    }

    pub const fn from_char(c: char) -> Option<Rank> {
        match c.to_ascii_uppercase() {
            'A' => Some(Rank::Ace),
            'K' => Some(Rank::King),
            'Q' => Some(Rank::Queen),
            'J' => Some(Rank::Jack),
            'T' => Some(Rank::Ten),
            '9' => Some(Rank::Nine),
            '8' => Some(Rank::Eight),
            '7' => Some(Rank::Seven),
            _ => None,
        }
    }
}

/// One of the 32 cards; id = suit * 8 + rank (Ace = 0).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    pub const fn new(suit: Suit, rank: Rank) -> Card {
        Card(suit as u8 * 8 + rank as u8)
    }

    pub const fn from_id(id: u8) -> Option<Card> {
        if id < 32 {
            Some(Card(id))
        } else {
            None
        }
    }

    pub const fn id(self) -> u8 {
        self.0
    }

    pub const fn suit(self) -> Suit {
        Suit::ALL[(self.0 >> 3) as usize]
    }

    pub const fn rank(self) -> Rank {
        Rank::ALL[(self.0 & 7) as usize]
    }

    pub const fn bit(self) -> u32 {
        1 << self.0
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.suit().char(), self.rank().char())
    }
}

/// Errors reading cards and hands from text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CardParseError {
    #[error(
        "unknown card `{text}` (expected suit letter S/H/D/C and rank A K Q J T 9 8 7, e.g. `SA`)"
    )]
    UnknownCard { text: String },
    #[error("unknown rank `{rank}` in hand `{hand}` (ranks are A K Q J T 9 8 7)")]
    UnknownRank { rank: char, hand: String },
    #[error("hand `{hand}` has {found} suits, expected 4 separated by dots (S.H.D.C)")]
    SuitCount { hand: String, found: usize },
    #[error("card {card} appears twice in hand `{hand}`")]
    DuplicateInHand { card: Card, hand: String },
}

impl FromStr for Card {
    type Err = CardParseError;

    /// Suit letter then rank: `SA`, `HT`, `C7` (`10` is accepted for T).
    fn from_str(s: &str) -> Result<Card, CardParseError> {
        let err = || CardParseError::UnknownCard {
            text: s.to_string(),
        };
        let mut chars = s.trim().chars();
        let suit = chars.next().and_then(Suit::from_char).ok_or_else(err)?;
        let rest: String = chars.collect();
        let rank = match rest.as_str() {
            "10" => Rank::Ten,
            r if r.chars().count() == 1 => {
                r.chars().next().and_then(Rank::from_char).ok_or_else(err)?
            }
            _ => return Err(err()),
        };
        Ok(Card::new(suit, rank))
    }
}

/// A set of cards as a bitset over card ids.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Cards(pub u32);

impl Cards {
    pub const EMPTY: Cards = Cards(0);
    pub const ALL: Cards = Cards(u32::MAX);

    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub const fn contains(self, card: Card) -> bool {
        self.0 & card.bit() != 0
    }

    pub const fn with(self, card: Card) -> Cards {
        Cards(self.0 | card.bit())
    }

    pub const fn without(self, card: Card) -> Cards {
        Cards(self.0 & !card.bit())
    }

    pub fn insert(&mut self, card: Card) -> bool {
        let fresh = !self.contains(card);
        self.0 |= card.bit();
        fresh
    }

    pub fn remove(&mut self, card: Card) -> bool {
        let had = self.contains(card);
        self.0 &= !card.bit();
        had
    }

    pub const fn union(self, other: Cards) -> Cards {
        Cards(self.0 | other.0)
    }

    pub const fn intersect(self, other: Cards) -> Cards {
        Cards(self.0 & other.0)
    }

    pub const fn minus(self, other: Cards) -> Cards {
        Cards(self.0 & !other.0)
    }

    pub const fn is_disjoint(self, other: Cards) -> bool {
        self.0 & other.0 == 0
    }

    /// The cards of one suit.
    pub const fn suit(self, suit: Suit) -> Cards {
        Cards(self.0 & suit.cards().0)
    }

    /// The card with the lowest id (the highest card of the first non-empty suit).
    pub const fn first(self) -> Option<Card> {
        if self.0 == 0 {
            None
        } else {
            Some(Card(self.0.trailing_zeros() as u8))
        }
    }

    /// Cards in id order (S before H before D before C; A before K ... before 7).
    pub fn iter(self) -> CardsIter {
        CardsIter(self.0)
    }
}

impl FromIterator<Card> for Cards {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> Cards {
        iter.into_iter().fold(Cards::EMPTY, Cards::with)
    }
}

impl IntoIterator for Cards {
    type Item = Card;
    type IntoIter = CardsIter;
    fn into_iter(self) -> CardsIter {
        self.iter()
    }
}

/// Iterator over a [`Cards`] set in id order.
#[derive(Debug, Clone)]
pub struct CardsIter(u32);

impl Iterator for CardsIter {
    type Item = Card;
    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let id = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Card(id))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CardsIter {}

impl fmt::Debug for Cards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cards({self})")
    }
}

impl fmt::Display for Cards {
    /// Hand text `AQJ8.KT8.KJ.9` (S.H.D.C, empty suits left empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for suit in Suit::ALL {
            if suit != Suit::Spades {
                f.write_str(".")?;
            }
            for card in self.suit(suit) {
                write!(f, "{}", card.rank().char())?;
            }
        }
        Ok(())
    }
}

impl FromStr for Cards {
    type Err = CardParseError;

    /// Hand text `AQJ8.KT8.KJ.9`: four suits S.H.D.C separated by dots.
    fn from_str(s: &str) -> Result<Cards, CardParseError> {
        let text = s.trim();
        let parts: Vec<&str> = text.split('.').collect();
        if parts.len() != 4 {
            return Err(CardParseError::SuitCount {
                hand: text.to_string(),
                found: parts.len(),
            });
        }
        let mut cards = Cards::EMPTY;
        for (suit, part) in Suit::ALL.into_iter().zip(parts) {
            let mut chars = part.chars().peekable();
            while let Some(c) = chars.next() {
                // "10" is accepted as an alternative spelling of T.
                let rank = if c == '1' && chars.peek() == Some(&'0') {
                    chars.next();
                    Some(Rank::Ten)
                } else {
                    Rank::from_char(c)
                };
                let rank = rank.ok_or_else(|| CardParseError::UnknownRank {
                    rank: c,
                    hand: text.to_string(),
                })?;
                let card = Card::new(suit, rank);
                if !cards.insert(card) {
                    return Err(CardParseError::DuplicateInHand {
                        card,
                        hand: text.to_string(),
                    });
                }
            }
        }
        Ok(cards)
    }
}

/// A seat at the three-player table. Play goes N -> E -> W -> N.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seat {
    N = 0,
    E = 1,
    W = 2,
}

impl Seat {
    pub const ALL: [Seat; 3] = [Seat::N, Seat::E, Seat::W];

    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn from_index(i: usize) -> Option<Seat> {
        match i {
            0 => Some(Seat::N),
            1 => Some(Seat::E),
            2 => Some(Seat::W),
            _ => None,
        }
    }

    /// The seat that plays after this one.
    pub const fn next(self) -> Seat {
        Seat::ALL[(self as usize + 1) % 3]
    }

    /// The seat that plays before this one.
    pub const fn prev(self) -> Seat {
        Seat::ALL[(self as usize + 2) % 3]
    }

    pub const fn char(self) -> char {
        match self {
            Seat::N => 'N',
            Seat::E => 'E',
            Seat::W => 'W',
        }
    }

    pub const fn from_char(c: char) -> Option<Seat> {
        match c.to_ascii_uppercase() {
            'N' => Some(Seat::N),
            'E' => Some(Seat::E),
            'W' => Some(Seat::W),
            _ => None,
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// One value per seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BySeat<T> {
    pub n: T,
    pub e: T,
    pub w: T,
}

impl<T> BySeat<T> {
    pub const fn new(n: T, e: T, w: T) -> BySeat<T> {
        BySeat { n, e, w }
    }

    pub fn from_fn(mut f: impl FnMut(Seat) -> T) -> BySeat<T> {
        BySeat {
            n: f(Seat::N),
            e: f(Seat::E),
            w: f(Seat::W),
        }
    }

    pub const fn get(&self, seat: Seat) -> &T {
        match seat {
            Seat::N => &self.n,
            Seat::E => &self.e,
            Seat::W => &self.w,
        }
    }

    pub fn get_mut(&mut self, seat: Seat) -> &mut T {
        match seat {
            Seat::N => &mut self.n,
            Seat::E => &mut self.e,
            Seat::W => &mut self.w,
        }
    }

    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> BySeat<U> {
        BySeat {
            n: f(self.n),
            e: f(self.e),
            w: f(self.w),
        }
    }

    /// `(seat, value)` pairs in seat order N, E, W.
    pub fn iter(&self) -> impl Iterator<Item = (Seat, &T)> {
        [(Seat::N, &self.n), (Seat::E, &self.e), (Seat::W, &self.w)].into_iter()
    }
}

impl<T> std::ops::Index<Seat> for BySeat<T> {
    type Output = T;
    fn index(&self, seat: Seat) -> &T {
        self.get(seat)
    }
}

impl<T> std::ops::IndexMut<Seat> for BySeat<T> {
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        self.get_mut(seat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_ids_and_text() {
        let c: Card = "HT".parse().unwrap();
        assert_eq!(c.id(), 8 + 4);
        assert_eq!(c.to_string(), "HT");
        assert_eq!(
            "S10".parse::<Card>().unwrap(),
            Card::new(Suit::Spades, Rank::Ten)
        );
        assert!("X7".parse::<Card>().is_err());
        assert!("S6".parse::<Card>().is_err());
    }

    #[test]
    fn hand_round_trip() {
        let h: Cards = "AQJ8.KT8.KJ.9".parse().unwrap();
        assert_eq!(h.len(), 10);
        assert_eq!(h.to_string(), "AQJ8.KT8.KJ.9");
        assert!(matches!(
            "AA...".parse::<Cards>(),
            Err(CardParseError::DuplicateInHand { .. })
        ));
        assert!(matches!(
            "A6...".parse::<Cards>(),
            Err(CardParseError::UnknownRank { rank: '6', .. })
        ));
        assert!(matches!(
            "A..".parse::<Cards>(),
            Err(CardParseError::SuitCount { found: 3, .. })
        ));
    }

    #[test]
    fn seats_cycle() {
        assert_eq!(Seat::N.next(), Seat::E);
        assert_eq!(Seat::W.next(), Seat::N);
        assert_eq!(Seat::N.prev(), Seat::W);
    }
}
