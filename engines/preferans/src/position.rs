//! Raw deal data and the validated position built from it.

use thiserror::Error;

use super::cards::{BySeat, Card, Cards, Seat, Suit};
use super::contract::Strain;
use super::rules;

/// Unchecked input: convert into a [`Position`] with `Position::try_from`.
///
/// `hands` are the CURRENT hands: cards already played to the current trick are
/// listed in `played` (in play order, starting with `leader`), not in the hands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deal {
    pub hands: BySeat<Cards>,
    pub strain: Strain,
    pub declarer: Seat,
    /// Who led (or is about to lead) the current trick.
    pub leader: Seat,
    pub played: Vec<Card>,
}

/// Why a [`Deal`] is not a valid position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionError {
    #[error("card {card} appears twice in the deal")]
    DuplicateCard { card: Card },
    #[error("the deal is empty: no cards left to play")]
    EmptyDeal,
    #[error("{count} cards played to the current trick; at most 2 are allowed")]
    TooManyPlayed { count: usize },
    #[error("seat {seat} holds {found} cards, expected {expected} at this stage of the trick")]
    HandSize {
        seat: Seat,
        expected: usize,
        found: usize,
    },
    #[error("more than 10 cards per hand ({found})")]
    TooManyCards { found: usize },
    #[error("seat {seat} played {card} but did not hold it")]
    NotHeld { seat: Seat, card: Card },
    #[error("seat {seat} played {card} but must follow suit {led}")]
    Revoke { seat: Seat, card: Card, led: Suit },
    #[error("seat {seat} played {card} but, void in {led}, must play a trump ({trump})")]
    TrumpRevoke {
        seat: Seat,
        card: Card,
        led: Suit,
        trump: Suit,
    },
}

/// A validated position: three hands, strain, declarer, and 0..=2 cards already in the trick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    hands: BySeat<Cards>,
    strain: Strain,
    declarer: Seat,
    leader: Seat,
    played: Vec<Card>,
}

impl Position {
    /// Validates and builds a position (see [`Deal`] for the meaning of the arguments).
    pub fn new(
        hands: BySeat<Cards>,
        strain: Strain,
        declarer: Seat,
        leader: Seat,
        played: &[Card],
    ) -> Result<Position, PositionError> {
        Position::try_from(Deal {
            hands,
            strain,
            declarer,
            leader,
            played: played.to_vec(),
        })
    }

    /// Builds a position from hands that STILL CONTAIN the cards played to the current
    /// trick (as problem files list them): each played card is checked to be held by
    /// the seat whose turn it was, then removed from its hand.
    pub fn from_full_hands(
        mut hands: BySeat<Cards>,
        strain: Strain,
        declarer: Seat,
        leader: Seat,
        played: &[Card],
    ) -> Result<Position, PositionError> {
        if played.len() > 2 {
            return Err(PositionError::TooManyPlayed {
                count: played.len(),
            });
        }
        let mut seat = leader;
        for &card in played {
            if !hands[seat].remove(card) {
                return Err(PositionError::NotHeld { seat, card });
            }
            seat = seat.next();
        }
        Position::new(hands, strain, declarer, leader, played)
    }

    pub fn hands(&self) -> &BySeat<Cards> {
        &self.hands
    }

    pub fn strain(&self) -> Strain {
        self.strain
    }

    pub fn declarer(&self) -> Seat {
        self.declarer
    }

    pub fn leader(&self) -> Seat {
        self.leader
    }

    /// Cards already played to the current trick, in play order.
    pub fn played(&self) -> &[Card] {
        &self.played
    }

    /// The seat to play next.
    pub fn to_move(&self) -> Seat {
        match self.played.len() {
            0 => self.leader,
            1 => self.leader.next(),
            _ => self.leader.prev(),
        }
    }

    /// Tricks left to play, the current one included.
    pub fn tricks_left(&self) -> u8 {
        self.hands[self.to_move()].len() as u8
    }

    /// Legal cards for the seat to move.
    pub fn legal_moves(&self) -> Cards {
        let led = self.played.first().map(|c| c.id());
        Cards(rules::legal(
            self.hands[self.to_move()].0,
            led,
            trump_mask(self.strain),
        ))
    }
}

pub(crate) fn trump_mask(strain: Strain) -> u32 {
    strain.trump().map_or(0, |s| s.cards().0)
}

impl TryFrom<Deal> for Position {
    type Error = PositionError;

    fn try_from(deal: Deal) -> Result<Position, PositionError> {
        let Deal {
            hands,
            strain,
            declarer,
            leader,
            played,
        } = deal;
        if played.len() > 2 {
            return Err(PositionError::TooManyPlayed {
                count: played.len(),
            });
        }
        // Duplicates across hands and played cards.
        let mut seen = Cards::EMPTY;
        for card in Seat::ALL
            .iter()
            .flat_map(|&s| hands[s].iter())
            .chain(played.iter().copied())
        {
            if !seen.insert(card) {
                return Err(PositionError::DuplicateCard { card });
            }
        }
        // Hand sizes: players who already played this trick hold one card fewer.
        let n = hands[leader].len() + usize::from(!played.is_empty());
        if n == 0 {
            return Err(PositionError::EmptyDeal);
        }
        if n > 10 {
            return Err(PositionError::TooManyCards { found: n });
        }
        let mut seat = leader;
        for i in 0..3 {
            let expected = if i < played.len() { n - 1 } else { n };
            let found = hands[seat].len();
            if found != expected {
                return Err(PositionError::HandSize {
                    seat,
                    expected,
                    found,
                });
            }
            seat = seat.next();
        }
        // Each played card after the lead must follow the rules given the hand it came from.
        if let Some(&lead) = played.first() {
            let mut seat = leader.next();
            for &card in &played[1..] {
                let before = hands[seat].with(card);
                let allowed = rules::legal(before.0, Some(lead.id()), trump_mask(strain));
                if allowed & card.bit() == 0 {
                    let led = lead.suit();
                    if !before.suit(led).is_empty() {
                        return Err(PositionError::Revoke { seat, card, led });
                    }
                    let trump = strain.trump().unwrap_or(led);
                    return Err(PositionError::TrumpRevoke {
                        seat,
                        card,
                        led,
                        trump,
                    });
                }
                seat = seat.next();
            }
        }
        Ok(Position {
            hands,
            strain,
            declarer,
            leader,
            played,
        })
    }
}
