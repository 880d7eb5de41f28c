//! [`RuleSet`] and [`Objective`].

use super::error::Error;

/// The rules of a Rummikub variant.
///
/// Runs: one colour, consecutive numbers, at least `min_len` tiles (at most
/// `numbers`). Groups: one number, distinct colours, `min_len..=colours` tiles.
/// A joker stands for any number tile in a run or group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleSet {
    /// Numbers per colour: tiles are numbered `1..=numbers` (default 13, max 31).
    pub numbers: u8,
    /// Colours (default 4, max 8).
    pub colours: u8,
    /// Copies of each number tile (default 2, max 4).
    pub copies: u8,
    /// Jokers in the game (default 2, max 4).
    pub jokers: u8,
    /// Minimum length of a run or group (default 3, range 2..=6).
    pub min_len: u8,
    /// Points the opening melds must be worth (default 30, max 255). A joker
    /// counts as the number it stands for.
    pub opening_value: u16,
    /// Whether melds may hold a "redundant" joker: one that could be taken out
    /// leaving a valid meld, i.e. a joker in a group longer than `min_len`, or
    /// a joker at either end of a run longer than `min_len` (default true).
    /// Some solvers never form such melds; `false` reproduces their answers.
    pub allow_redundant_jokers: bool,
}

impl Default for RuleSet {
    fn default() -> RuleSet {
        RuleSet {
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

impl RuleSet {
    /// Checks every parameter against the supported ranges.
    pub fn validate(&self) -> Result<(), Error> {
        let check = |name: &'static str, value: u32, min: u32, max: u32| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(Error::RuleOutOfRange {
                    name,
                    value,
                    min,
                    max,
                })
            }
        };
        check("numbers", self.numbers.into(), 1, 31)?;
        check("colours", self.colours.into(), 1, 8)?;
        check("copies", self.copies.into(), 1, 4)?;
        check("jokers", self.jokers.into(), 0, 4)?;
        check("min_len", self.min_len.into(), 2, 6)?;
        check("opening_value", self.opening_value.into(), 0, 255)?;
        Ok(())
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
