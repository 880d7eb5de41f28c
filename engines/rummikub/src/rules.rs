//! [`RuleSet`] and [`Objective`].

use super::error::Error;

/// The rules of a Rummikub variant, validated: build one from [`RawRules`]
/// with `RuleSet::try_from`, or take the standard rules with `default()`.
///
/// Runs: one colour, consecutive numbers, at least `min_len` tiles (at most
/// `numbers`). Groups: one number, distinct colours, `min_len..=colours` tiles.
/// A joker stands for any number tile in a run or group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleSet {
    pub(crate) numbers: u8,
    pub(crate) colours: u8,
    pub(crate) copies: u8,
    pub(crate) jokers: u8,
    pub(crate) min_len: u8,
    pub(crate) opening_value: u16,
    pub(crate) allow_redundant_jokers: bool,
}

/// Rule-set parameters as given, not yet checked; `Default` is the standard
/// game. `RuleSet::try_from` checks each against its supported range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RawRules {
    /// Numbers per colour: tiles are numbered `1..=numbers` (standard 13, max 31).
    pub numbers: u32,
    /// Colours (standard 4, max 8).
    pub colours: u32,
    /// Copies of each number tile (standard 2, max 4).
    pub copies: u32,
    /// Jokers in the game (standard 2, max 4).
    pub jokers: u32,
    /// Minimum length of a run or group (standard 3, range 2..=6).
    pub min_len: u32,
    /// Points the opening melds must be worth (standard 30, max 255). A joker
    /// counts as the number it stands for.
    pub opening_value: u32,
    /// Whether melds may hold a "redundant" joker: one that could be taken out
    /// leaving a valid meld, i.e. a joker in a group longer than `min_len`, or
    /// a joker at either end of a run longer than `min_len` (standard true).
    /// Some solvers never form such melds; `false` reproduces their answers.
    pub allow_redundant_jokers: bool,
}

impl Default for RawRules {
    fn default() -> RawRules {
        RawRules {
            numbers: 13,
            colours: 4,
            copies: 2,
            jokers: 2,
            min_len: 3,
            opening_value: 30,
            allow_redundant_jokers: true,
        }
    }
}

/// A rule-set parameter, named as the [`RawRules`] field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    Numbers,
    Colours,
    Copies,
    Jokers,
    MinLen,
    OpeningValue,
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Rule::Numbers => "numbers",
            Rule::Colours => "colours",
            Rule::Copies => "copies",
            Rule::Jokers => "jokers",
            Rule::MinLen => "min_len",
            Rule::OpeningValue => "opening_value",
        })
    }
}

impl Default for RuleSet {
    fn default() -> RuleSet {
        RuleSet::try_from(RawRules::default()).expect("the standard rules are valid")
    }
}

impl TryFrom<RawRules> for RuleSet {
    type Error = Error;

    /// Checks every parameter against its supported range.
    fn try_from(raw: RawRules) -> Result<RuleSet, Error> {
        let check = |rule: Rule, value: u32, min: u32, max: u32| {
            if (min..=max).contains(&value) {
                Ok(value)
            } else {
                Err(Error::RuleOutOfRange {
                    rule,
                    value,
                    min,
                    max,
                })
            }
        };
        // The maxima fit the narrow types, so the casts below are exact.
        Ok(RuleSet {
            numbers: check(Rule::Numbers, raw.numbers, 1, 31)? as u8,
            colours: check(Rule::Colours, raw.colours, 1, 8)? as u8,
            copies: check(Rule::Copies, raw.copies, 1, 4)? as u8,
            jokers: check(Rule::Jokers, raw.jokers, 0, 4)? as u8,
            min_len: check(Rule::MinLen, raw.min_len, 2, 6)? as u8,
            opening_value: check(Rule::OpeningValue, raw.opening_value, 0, 255)? as u16,
            allow_redundant_jokers: raw.allow_redundant_jokers,
        })
    }
}

impl From<RuleSet> for RawRules {
    fn from(rules: RuleSet) -> RawRules {
        RawRules {
            numbers: rules.numbers.into(),
            colours: rules.colours.into(),
            copies: rules.copies.into(),
            jokers: rules.jokers.into(),
            min_len: rules.min_len.into(),
            opening_value: rules.opening_value.into(),
            allow_redundant_jokers: rules.allow_redundant_jokers,
        }
    }
}

impl RuleSet {
    /// Numbers per colour: tiles are numbered `1..=numbers`.
    pub fn numbers(&self) -> u8 {
        self.numbers
    }
    /// Colours in play.
    pub fn colours(&self) -> u8 {
        self.colours
    }
    /// Copies of each number tile.
    pub fn copies(&self) -> u8 {
        self.copies
    }
    /// Jokers in the game.
    pub fn jokers(&self) -> u8 {
        self.jokers
    }
    /// Minimum length of a run or group.
    pub fn min_len(&self) -> u8 {
        self.min_len
    }
    /// Points the opening melds must be worth.
    pub fn opening_value(&self) -> u16 {
        self.opening_value
    }
    /// Whether melds may hold a redundant joker (see [`RawRules`]).
    pub fn allow_redundant_jokers(&self) -> bool {
        self.allow_redundant_jokers
    }
    /// How many tiles the whole game has.
    pub fn game_size(&self) -> usize {
        usize::from(self.numbers) * usize::from(self.colours) * usize::from(self.copies)
            + usize::from(self.jokers)
    }
}

/// What [`best_move`](super::best_move) maximises.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Objective {
    /// The number of rack tiles placed (ties broken by value).
    #[default]
    MaxTiles,
    /// The value of the rack tiles placed: the sum of their numbers, a joker
    /// placed from the rack counting [`JOKER_VALUE`] (ties broken by tile count).
    MaxValue,
}

/// What a joker placed from the rack is worth under [`Objective::MaxValue`]
/// (the penalty a joker left on the rack costs at the end of a game).
pub const JOKER_VALUE: u32 = 30;
