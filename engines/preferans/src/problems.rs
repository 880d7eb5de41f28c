//! The `.pts` / `.bts` problem files of the established preferans solver.
//!
//! ```text
//! % comment line
//! deal 1 A98.AT98..T87 QT7.KQJ.A.KQJ KJ.7.KQJT9.A9
//! contract 6S          (also 6NT, misere / mizer, ?H)
//! play W               (who leads) or a card sequence: DA D9 DJ
//! turns 0              (how many cards of `play` are already on the table)
//! player E             (the declarer)
//! absent S             (the seat not playing; default S)
//! comment text...      (continues until a blank line or the next deal)
//! ```
//!
//! The three hands are listed in the order N, E, S, W without the absent seat. The
//! present seats keep their cyclic order, so they map onto this crate's N -> E -> W in
//! listing order (absent S: N E W as is; absent W: N E S -> N E W; ...).

use thiserror::Error;

use super::cards::{BySeat, Card, CardParseError, Cards, Seat};
use super::contract::{Contract, ContractError};
use super::position::{Position, PositionError};
use super::view::{DeclarerView, ViewError};

/// One problem of a file; hands are FULL (they still hold cards already played).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The number after `deal`, as written.
    pub name: String,
    pub hands: BySeat<Cards>,
    pub contract: Contract,
    pub declarer: Seat,
    /// Who leads the current trick.
    pub leader: Seat,
    /// The `play` card sequence (empty when only a leader was given).
    pub play: Vec<Card>,
    /// How many cards of `play` are already on the table.
    pub turns: usize,
    pub comment: String,
}

/// A problem in a file that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DealError {
    #[error("{found} hands given, expected 3 (a 4-hand bridge deal is not a preferans deal)")]
    HandCount { found: usize },
    #[error("bad hand: {0}")]
    Hand(#[from] CardParseError),
    #[error("bad contract: {0}")]
    Contract(#[from] ContractError),
    #[error("missing `{keyword}` line")]
    Missing { keyword: &'static str },
    #[error("unknown seat `{text}` (expected N, E, S or W)")]
    Seat { text: String },
    #[error("seat `{seat}` is the absent seat")]
    AbsentSeat { seat: char },
    #[error("bad `turns` value `{text}`")]
    Turns { text: String },
    #[error("turns {turns} exceeds the {len} cards of `play`")]
    TurnsBeyondPlay { turns: usize, len: usize },
    #[error("played card {card} is in nobody's hand")]
    PlayNotHeld { card: Card },
    #[error("card {card} appears in two hands")]
    DuplicateCard { card: Card },
    #[error("hands of unequal sizes {sizes:?} (files list full hands, before the current trick)")]
    UnequalHands { sizes: [usize; 3] },
}

/// Why a problem file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    #[error("line {line}: unknown keyword `{keyword}`")]
    UnknownKeyword { line: usize, keyword: String },
    #[error("line {line}: `{keyword}` before the first `deal`")]
    BeforeDeal { line: usize, keyword: String },
    #[error("deal {deal}: {source}")]
    Deal {
        deal: String,
        #[source]
        source: DealError,
    },
}

/// Reads every problem of a file; the first bad problem is an error naming it.
pub fn parse_problems(text: &str) -> Result<Vec<Problem>, ParseError> {
    let (problems, errors) = parse_problems_lossy(text);
    match errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(problems),
    }
}

/// Reads the good problems of a file and reports the bad ones (with the reason)
/// instead of failing, e.g. to skip 4-hand bridge deals.
pub fn parse_problems_lossy(text: &str) -> (Vec<Problem>, Vec<ParseError>) {
    let mut problems = Vec::new();
    let mut errors = Vec::new();
    let mut current: Option<RawProblem> = None;
    let mut in_comment = false;
    let finish = |raw: RawProblem, problems: &mut Vec<Problem>, errors: &mut Vec<ParseError>| {
        let deal = raw.name.clone();
        match raw.build() {
            Ok(p) => problems.push(p),
            Err(source) => errors.push(ParseError::Deal { deal, source }),
        }
    };
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            in_comment = false;
            continue;
        }
        if line.starts_with('%') {
            continue;
        }
        let (keyword, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        if keyword == "deal" {
            in_comment = false;
            if let Some(raw) = current.take() {
                finish(raw, &mut problems, &mut errors);
            }
            let mut words = rest.split_whitespace();
            current = Some(RawProblem {
                name: words.next().unwrap_or("").to_string(),
                hands: words.map(str::to_string).collect(),
                ..RawProblem::default()
            });
            continue;
        }
        let Some(raw) = current.as_mut() else {
            errors.push(ParseError::BeforeDeal {
                line: i + 1,
                keyword: keyword.to_string(),
            });
            continue;
        };
        if in_comment {
            raw.comment.push('\n');
            raw.comment.push_str(line);
            continue;
        }
        match keyword {
            "contract" => raw.contract = Some(rest.to_string()),
            "play" => raw.play = Some(rest.to_string()),
            "turns" => raw.turns = Some(rest.to_string()),
            "player" => raw.player = Some(rest.to_string()),
            "absent" => raw.absent = Some(rest.to_string()),
            "comment" => {
                raw.comment = rest.to_string();
                in_comment = true;
            }
            _ => errors.push(ParseError::UnknownKeyword {
                line: i + 1,
                keyword: keyword.to_string(),
            }),
        }
    }
    if let Some(raw) = current.take() {
        finish(raw, &mut problems, &mut errors);
    }
    (problems, errors)
}

#[derive(Default)]
struct RawProblem {
    name: String,
    hands: Vec<String>,
    contract: Option<String>,
    play: Option<String>,
    turns: Option<String>,
    player: Option<String>,
    absent: Option<String>,
    comment: String,
}

/// Maps a file seat letter (N, E, S, W) to a seat of this crate, given the absent one.
fn map_seat(text: &str, absent: char) -> Result<Seat, DealError> {
    let mut chars = text.trim().chars();
    let c = match (chars.next(), chars.next()) {
        (Some(c), None) => c.to_ascii_uppercase(),
        _ => {
            return Err(DealError::Seat {
                text: text.to_string(),
            })
        }
    };
    if !"NESW".contains(c) {
        return Err(DealError::Seat {
            text: text.to_string(),
        });
    }
    if c == absent {
        return Err(DealError::AbsentSeat { seat: c });
    }
    let pos = "NESW".chars().filter(|&s| s != absent).position(|s| s == c);
    pos.and_then(Seat::from_index).ok_or(DealError::Seat {
        text: text.to_string(),
    })
}

impl RawProblem {
    fn build(self) -> Result<Problem, DealError> {
        if self.hands.len() != 3 {
            return Err(DealError::HandCount {
                found: self.hands.len(),
            });
        }
        let absent = match &self.absent {
            None => 'S',
            Some(a) => {
                let c = a.trim().to_ascii_uppercase();
                match c.as_str() {
                    "N" | "E" | "S" | "W" => c.chars().next().unwrap_or('S'),
                    _ => return Err(DealError::Seat { text: a.clone() }),
                }
            }
        };
        let mut hands = BySeat::<Cards>::default();
        let mut seen = Cards::EMPTY;
        for (seat, text) in Seat::ALL.into_iter().zip(&self.hands) {
            let hand: Cards = text.parse()?;
            if let Some(card) = hand.intersect(seen).first() {
                return Err(DealError::DuplicateCard { card });
            }
            seen = seen.union(hand);
            hands[seat] = hand;
        }
        let sizes = [hands.n.len(), hands.e.len(), hands.w.len()];
        if sizes[0] != sizes[1] || sizes[1] != sizes[2] || sizes[0] > 10 {
            return Err(DealError::UnequalHands { sizes });
        }
        let contract: Contract = self
            .contract
            .as_deref()
            .ok_or(DealError::Missing {
                keyword: "contract",
            })?
            .parse()?;
        let declarer = map_seat(
            self.player
                .as_deref()
                .ok_or(DealError::Missing { keyword: "player" })?,
            absent,
        )?;
        let play_text = self
            .play
            .as_deref()
            .ok_or(DealError::Missing { keyword: "play" })?;
        let words: Vec<&str> = play_text.split_whitespace().collect();
        let (leader, play) = match words.as_slice() {
            [] => return Err(DealError::Missing { keyword: "play" }),
            [w] if w.len() == 1 => (map_seat(w, absent)?, Vec::new()),
            _ => {
                let play = words
                    .iter()
                    .map(|w| w.parse::<Card>())
                    .collect::<Result<Vec<_>, _>>()?;
                let first = play[0];
                let leader = Seat::ALL
                    .into_iter()
                    .find(|&s| hands[s].contains(first))
                    .ok_or(DealError::PlayNotHeld { card: first })?;
                (leader, play)
            }
        };
        let turns = match self.turns.as_deref() {
            None => 0,
            Some(t) => t.trim().parse::<usize>().map_err(|_| DealError::Turns {
                text: t.to_string(),
            })?,
        };
        if turns > play.len() {
            return Err(DealError::TurnsBeyondPlay {
                turns,
                len: play.len(),
            });
        }
        Ok(Problem {
            name: self.name,
            hands,
            contract,
            declarer,
            leader,
            play,
            turns,
            comment: self.comment,
        })
    }
}

/// Why a problem does not convert into a position or declarer view.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProblemError {
    #[error("{turns} cards already played: at most 2 (the current trick) are supported")]
    TooManyTurns { turns: usize },
    #[error(transparent)]
    Position(#[from] PositionError),
    #[error(transparent)]
    View(#[from] ViewError),
}

impl Problem {
    /// Cards already on the table (the first `turns` cards of `play`).
    pub fn played(&self) -> &[Card] {
        &self.play[..self.turns.min(self.play.len())]
    }

    /// The full-information position (played cards removed from their hands).
    pub fn position(&self) -> Result<Position, ProblemError> {
        if self.turns > 2 {
            return Err(ProblemError::TooManyTurns { turns: self.turns });
        }
        Ok(Position::from_full_hands(
            self.hands,
            self.contract.strain,
            self.declarer,
            self.leader,
            self.played(),
        )?)
    }

    /// What the declarer sees: its hand, the 2 cards no one holds as the talon, and the
    /// declarer's own lead if it is already on the table.
    pub fn declarer_view(&self) -> Result<DeclarerView, ProblemError> {
        if self.turns > 2 {
            return Err(ProblemError::TooManyTurns { turns: self.turns });
        }
        let played = self.played().to_vec();
        let dealt = self.hands.n.union(self.hands.e).union(self.hands.w);
        let hand = played
            .iter()
            .fold(self.hands[self.declarer], |h, &c| h.without(c));
        Ok(DeclarerView::new(
            self.declarer,
            hand,
            Cards::ALL.minus(dealt),
            self.contract,
            self.leader,
            played,
        )?)
    }
}
