//! Dou Dizhu hand algebra: a packed [`CardsVector`], play classification,
//! every legal play of a hand and every play that beats a given one.
//!
//! Pure engine: no I/O, no transport types, no panics on any input.
//!
//! # Cards
//!
//! Ranks low to high `3 4 5 6 7 8 9 T J Q K A 2 B R` (`B` black/small joker,
//! `R` red/big joker; `10` accepted for `T` in text). A [`CardsVector`] packs a
//! multiset of cards into a `u64`, nibble `i` = count of rank `i`; nibble 15 is
//! zero, so `contains` is the SWAR test `((v | M) - o) & M == M` with
//! `M = 0x8888_8888_8888_8888` and `remove` a plain subtraction.
//!
//! # Rules (the common rules as encoded by RLCard; 27,471 plays from a full deck)
//!
//! A play is a multiset of cards: generators list each multiset once, pass
//! excluded. `key` is the rank that decides comparisons.
//!
//! | kind | cards | key |
//! |---|---|---|
//! | `Single` | one card | its rank |
//! | `Pair` | two of a rank (`B`+`R` is no pair) | the rank |
//! | `Trio` | three of a rank | the rank |
//! | `TrioWithSingle` | trio + one card of another rank (a joker is fine) | the trio |
//! | `TrioWithPair` | trio + a pair of another rank | the trio |
//! | `ChainOfSingles` | 5..=12 consecutive ranks, one card each | lowest rank |
//! | `ChainOfPairs` | 3..=10 consecutive pairs | lowest rank |
//! | `ChainOfTrios` | 2..=6 consecutive trios, no kickers | lowest rank |
//! | `AirplaneWithSingles` | chain of L = 2..=5 trios + L single kickers | lowest chain rank |
//! | `AirplaneWithPairs` | chain of L = 2..=4 trios + L pairs | lowest chain rank |
//! | `FourWithTwoSingles` | four of a rank + two kickers | the four |
//! | `FourWithTwoPairs` | four of a rank + two pairs | the four |
//! | `Bomb` | four of a rank | the rank |
//! | `Rocket` | `B` + `R` | `B` |
//!
//! Chains use ranks `3`..`A` only: `2`, `B` and `R` are never part of a chain.
//!
//! Kicker rules:
//! - trio + single / trio + pair: the kicker is of another rank than the trio;
//!   a pair kicker is two cards of one rank (`B`+`R` is no pair).
//! - airplane with singles: the L kickers come from ranks outside the chain;
//!   at most 3 copies of any one rank (so never a four); at most 2 copies of the
//!   rank just below or just above the chain (a third would extend the chain),
//!   except when that rank is `2`, which cannot extend a chain; never both `B`
//!   and `R`. Kickers may repeat a rank (`333444` + `55`).
//! - airplane with pairs: L distinct ranks outside the chain, one pair each (a
//!   rank adjacent to the chain is fine: a pair cannot extend a trio chain).
//! - four + two singles: two kickers of other ranks than the four, possibly
//!   two of the same rank (`3333` + `55`), never `B` and `R` together.
//! - four + two pairs: two pairs of two distinct other ranks. So `33334444` is
//!   no play at all (neither two pairs of one rank nor an airplane, whose
//!   kickers must lie outside the chain).
//!
//! Chain ranks of an airplane hold exactly three cards of the play (a fourth
//! would be a kicker from inside the chain). With these rules every multiset
//! has at most one reading, so [`classify`] needs no tie-break; the tests check
//! this against an independent reference that lists every reading.
//!
//! Beating: the rocket beats everything; a bomb beats every non-bomb and every
//! lower bomb; otherwise a play beats another of the same kind and chain
//! length with a higher key (kickers never count).
//!
//! # Example
//!
//! ```
//! use deckhand_handops::{beating_plays, classify, legal_plays, CardsVector, PlayKind};
//!
//! let hand: CardsVector = "34556677778888999TTT".parse()?;
//! assert_eq!(legal_plays(hand).len(), 295);
//! assert_eq!(legal_plays(CardsVector::FULL_DECK).len(), 27_471);
//!
//! let plane = classify("33344456".parse()?).expect("a play");
//! assert_eq!(plane.kind, PlayKind::AirplaneWithSingles);
//! assert_eq!(beating_plays(hand, &plane).len(), 59);
//! assert_eq!(classify("33334444".parse()?), None);
//! # Ok::<(), deckhand_handops::CardsError>(())
//! ```
//!
//! # Output order
//!
//! [`legal_plays`] and [`beating_plays`] group plays by kind (in [`PlayKind`]
//! declaration order), then by key, then by chain length; the kicker order
//! within one (kind, key, chain length) is fixed but unspecified.

mod cards;
mod classify;
mod error;
mod movegen;
mod play;
mod rank;

pub use cards::{CardsVector, Iter};
pub use classify::classify;
pub use error::CardsError;
pub use movegen::{beating_plays, beating_plays_into, legal_plays, legal_plays_into};
pub use play::{Play, PlayKind};
pub use rank::Rank;
