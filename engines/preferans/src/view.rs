//! What the declarer sees: its hand, the talon, the contract and the play so far.

use thiserror::Error;

use super::cards::{BySeat, Card, CardParseError, Cards, Rank, Seat, Suit};
use super::contract::Contract;
use super::layouts::{layout_subset, LAYOUT_COUNT};

/// Why a declarer view is invalid or unsupported.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ViewError {
    #[error("the declarer holds {found} cards (with its played card), expected 10")]
    HandSize { found: usize },
    #[error("the talon has {found} cards, expected 2")]
    TalonSize { found: usize },
    #[error("card {card} appears twice in the declarer view")]
    DuplicateCard { card: Card },
    #[error("played card {card} is not supported: only the declarer's own lead to the first trick may be given")]
    UnsupportedPlayed { card: Card },
    #[error("{count} played cards given; at most the declarer's lead (1) is supported")]
    TooManyPlayed { count: usize },
    #[error("bad card text: {0}")]
    Card(#[from] CardParseError),
    #[error("bad view notation `{text}`: {reason}")]
    Notation { text: String, reason: &'static str },
    #[error("layout range {start}..{end} is outside 0..{LAYOUT_COUNT}")]
    Range { start: u32, end: u32 },
}

/// The declarer's view of a deal before (or at) the opening lead; validated.
///
/// The 20 unknown cards are split between the defenders in [`LAYOUT_COUNT`] layouts.
/// Layout k: subset [`layout_subset`]`(k)` of [`DeclarerView::unknown_cards`] goes to the
/// seat that plays BEFORE the declarer (N's predecessor is W, E's is N, W's is E), the
/// rest to the other defender. With the declarer N this is "subset to West", as in the
/// published results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclarerView {
    declarer: Seat,
    hand: Cards,
    talon: Cards,
    contract: Contract,
    leader: Seat,
    played: Vec<Card>,
}

impl DeclarerView {
    /// `hand` is the declarer's CURRENT hand (without a card it already led, which is
    /// in `played`). Supported play: nothing, or the declarer's own lead (leader = declarer).
    pub fn new(
        declarer: Seat,
        hand: Cards,
        talon: Cards,
        contract: Contract,
        leader: Seat,
        played: Vec<Card>,
    ) -> Result<DeclarerView, ViewError> {
        if played.len() > 1 {
            return Err(ViewError::TooManyPlayed {
                count: played.len(),
            });
        }
        if let Some(&card) = played.first() {
            if leader != declarer {
                return Err(ViewError::UnsupportedPlayed { card });
            }
        }
        let mut seen = Cards::EMPTY;
        for card in hand
            .iter()
            .chain(talon.iter())
            .chain(played.iter().copied())
        {
            if !seen.insert(card) {
                return Err(ViewError::DuplicateCard { card });
            }
        }
        let found = hand.len() + played.len();
        if found != 10 {
            return Err(ViewError::HandSize { found });
        }
        if talon.len() != 2 {
            return Err(ViewError::TalonSize { found: talon.len() });
        }
        Ok(DeclarerView {
            declarer,
            hand,
            talon,
            contract,
            leader,
            played,
        })
    }

    /// Reads the notation of the published all-foe problems, e.g. `T987.T987.*98.*Q#J`:
    /// the declarer's cards by suit (S.H.D.C); `*` marks the next card as a talon card,
    /// `#` marks the next card as the declarer's lead already on the table (then the
    /// declarer must be the leader).
    pub fn from_notation(
        text: &str,
        declarer: Seat,
        contract: Contract,
        leader: Seat,
    ) -> Result<DeclarerView, ViewError> {
        let text = text.trim();
        let bad = |reason| ViewError::Notation {
            text: text.to_string(),
            reason,
        };
        let parts: Vec<&str> = text.split('.').collect();
        if parts.len() != 4 {
            return Err(bad("expected 4 suits separated by dots"));
        }
        let (mut hand, mut talon, mut played) = (Cards::EMPTY, Cards::EMPTY, Vec::new());
        for (suit, part) in Suit::ALL.into_iter().zip(parts) {
            let mut mark = None;
            for c in part.chars() {
                if c == '*' || c == '#' {
                    if mark.is_some() {
                        return Err(bad("two marks before one card"));
                    }
                    mark = Some(c);
                    continue;
                }
                let rank = Rank::from_char(c).ok_or_else(|| {
                    ViewError::Card(CardParseError::UnknownRank {
                        rank: c,
                        hand: text.to_string(),
                    })
                })?;
                let card = Card::new(suit, rank);
                let fresh = match mark.take() {
                    Some('*') => talon.insert(card),
                    Some(_) => {
                        played.push(card);
                        !hand.contains(card) && !talon.contains(card)
                    }
                    None => hand.insert(card),
                };
                if !fresh {
                    return Err(ViewError::DuplicateCard { card });
                }
            }
            if mark.is_some() {
                return Err(bad("a mark must be followed by a card"));
            }
        }
        DeclarerView::new(declarer, hand, talon, contract, leader, played)
    }

    /// The view's cards in the notation [`DeclarerView::from_notation`] reads: the
    /// declarer's cards by suit (S.H.D.C), `*` before a talon card, `#` before the
    /// declarer's lead already played. Every view has one: a view holds at most that
    /// one played card.
    pub fn notation(&self) -> String {
        let all = self.known();
        let suits: Vec<String> = Suit::ALL
            .into_iter()
            .map(|suit| {
                all.suit(suit)
                    .iter()
                    .map(|card| {
                        let mark = if self.talon.contains(card) {
                            "*"
                        } else if self.played.contains(&card) {
                            "#"
                        } else {
                            ""
                        };
                        format!("{mark}{}", card.rank().char())
                    })
                    .collect()
            })
            .collect();
        suits.join(".")
    }

    pub fn declarer(&self) -> Seat {
        self.declarer
    }

    pub fn hand(&self) -> Cards {
        self.hand
    }

    pub fn talon(&self) -> Cards {
        self.talon
    }

    pub fn contract(&self) -> Contract {
        self.contract
    }

    pub fn leader(&self) -> Seat {
        self.leader
    }

    pub fn played(&self) -> &[Card] {
        &self.played
    }

    /// All cards the declarer knows: hand, talon and played cards.
    pub fn known(&self) -> Cards {
        self.played
            .iter()
            .fold(self.hand.union(self.talon), |k, &c| k.with(c))
    }

    /// The 20 cards the defenders hold between them, sorted by card id.
    pub fn unknown_cards(&self) -> [Card; 20] {
        let mut out = [Card::new(Suit::Spades, Rank::Ace); 20];
        for (slot, card) in out.iter_mut().zip(Cards::ALL.minus(self.known()).iter()) {
            *slot = card;
        }
        out
    }

    /// The defender who receives the layout subset: the seat playing before the declarer.
    pub fn subset_seat(&self) -> Seat {
        self.declarer.prev()
    }

    /// Whether the result has one value per candidate opening card (declarer on lead,
    /// nothing played yet) rather than a single value.
    pub fn declarer_chooses_opening(&self) -> bool {
        self.leader == self.declarer && self.played.is_empty()
    }

    /// Candidate openings in card-id order (declarer's choice), or the single fixed one:
    /// the declarer's played lead, or `None` when a defender leads.
    pub fn openings(&self) -> Vec<Option<Card>> {
        if self.declarer_chooses_opening() {
            self.hand.iter().map(Some).collect()
        } else {
            vec![self.played.first().copied()]
        }
    }

    /// All three hands of layout `k` (None when `k >= LAYOUT_COUNT`).
    pub fn layout_hands(&self, k: u32) -> Option<BySeat<Cards>> {
        let subset = layout_subset(k)?;
        Some(self.hands_for_subset(subset))
    }

    pub(crate) fn hands_for_subset(&self, subset: u32) -> BySeat<Cards> {
        let mut hands = BySeat::<Cards>::default();
        hands[self.declarer] = self.hand;
        let (to, rest) = (self.declarer.prev(), self.declarer.next());
        for (i, card) in self.unknown_cards().into_iter().enumerate() {
            if subset & (1 << i) != 0 {
                hands[to].insert(card);
            } else {
                hands[rest].insert(card);
            }
        }
        hands
    }
}
