//! `Tile`: a compact tile id, and `Suit`.

use std::fmt;
use std::str::FromStr;

use super::error::HandError;

/// Number of distinct tile kinds (9 man + 9 pin + 9 sou + 7 honours).
pub const TILE_KINDS: usize = 34;

/// The four suits; honours (`z`) count as a suit for notation purposes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suit {
    /// Characters, `m`, ids 0..=8.
    Man,
    /// Circles, `p`, ids 9..=17.
    Pin,
    /// Bamboos, `s`, ids 18..=26.
    Sou,
    /// Winds and dragons, `z`, ids 27..=33 (E S W N white green red).
    Honour,
}

impl Suit {
    /// All suits in id order.
    pub const ALL: [Suit; 4] = [Suit::Man, Suit::Pin, Suit::Sou, Suit::Honour];

    /// The MPSZ letter of the suit.
    pub const fn char(self) -> char {
        match self {
            Suit::Man => 'm',
            Suit::Pin => 'p',
            Suit::Sou => 's',
            Suit::Honour => 'z',
        }
    }

    /// Parses an MPSZ suit letter.
    pub const fn from_char(c: char) -> Option<Suit> {
        match c {
            'm' => Some(Suit::Man),
            'p' => Some(Suit::Pin),
            's' => Some(Suit::Sou),
            'z' => Some(Suit::Honour),
            _ => None,
        }
    }

    /// Id of the suit's first tile.
    pub const fn first_id(self) -> u8 {
        match self {
            Suit::Man => 0,
            Suit::Pin => 9,
            Suit::Sou => 18,
            Suit::Honour => 27,
        }
    }

    /// Number of tile kinds in the suit (9, or 7 for honours).
    pub const fn size(self) -> u8 {
        match self {
            Suit::Honour => 7,
            _ => 9,
        }
    }
}

/// A tile kind: id 0-8 man 1-9, 9-17 pin 1-9, 18-26 sou 1-9, 27-33 honours
/// E S W N white green red (`1z`..`7z`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Tile(u8);

impl Tile {
    /// `1z`, the east wind.
    pub const EAST: Tile = Tile(27);
    /// `7z`, the red dragon.
    pub const RED: Tile = Tile(33);

    /// The tile with this id, if `id < 34`.
    pub const fn new(id: u8) -> Option<Tile> {
        if (id as usize) < TILE_KINDS {
            Some(Tile(id))
        } else {
            None
        }
    }

    /// Internal constructor for ids known to be in range.
    pub(crate) const fn from_index(index: usize) -> Tile {
        debug_assert!(index < TILE_KINDS);
        Tile(index as u8)
    }

    /// The tile `number` (1-based) of `suit`, if it exists (`1..=9`, honours `1..=7`).
    pub const fn from_suit_number(suit: Suit, number: u8) -> Option<Tile> {
        if number >= 1 && number <= suit.size() {
            Some(Tile(suit.first_id() + number - 1))
        } else {
            None
        }
    }

    /// The id, 0..=33.
    pub const fn id(self) -> u8 {
        self.0
    }

    /// The id as an index into a 34-count array.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The suit of the tile.
    pub const fn suit(self) -> Suit {
        match self.0 {
            0..=8 => Suit::Man,
            9..=17 => Suit::Pin,
            18..=26 => Suit::Sou,
            _ => Suit::Honour,
        }
    }

    /// The number within the suit: 1..=9, or 1..=7 for honours.
    pub const fn number(self) -> u8 {
        self.0 - self.suit().first_id() + 1
    }

    /// Whether this is a wind or dragon.
    pub const fn is_honour(self) -> bool {
        self.0 >= 27
    }

    /// Whether this is a 1 or 9 of a numbered suit, or an honour (the thirteen orphans).
    pub const fn is_terminal_or_honour(self) -> bool {
        self.is_honour() || self.number() == 1 || self.number() == 9
    }

    /// All 34 tiles in id order.
    pub fn all() -> impl Iterator<Item = Tile> + Clone {
        (0..TILE_KINDS as u8).map(Tile)
    }
}

impl TryFrom<u8> for Tile {
    type Error = HandError;

    fn try_from(id: u8) -> Result<Tile, HandError> {
        Tile::new(id).ok_or(HandError::TileId { id: u32::from(id) })
    }
}

impl TryFrom<u32> for Tile {
    type Error = HandError;

    fn try_from(id: u32) -> Result<Tile, HandError> {
        u8::try_from(id)
            .ok()
            .and_then(Tile::new)
            .ok_or(HandError::TileId { id })
    }
}

impl From<Tile> for u8 {
    fn from(tile: Tile) -> u8 {
        tile.0
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.number(), self.suit().char())
    }
}

/// Parses one tile such as `5m`, `0p` (red five, read as `5p`) or `7z`.
impl FromStr for Tile {
    type Err = HandError;

    fn from_str(text: &str) -> Result<Tile, HandError> {
        let mut chars = text.chars();
        let (Some(digit), Some(letter), None) = (chars.next(), chars.next(), chars.next()) else {
            return Err(HandError::UnknownTile {
                text: text.to_owned(),
                position: 0,
            });
        };
        let Some(suit) = Suit::from_char(letter) else {
            return Err(HandError::UnknownTile {
                text: text.to_owned(),
                position: 1,
            });
        };
        tile_from_digit(digit, suit, 0).map_err(|e| match e {
            HandError::UnknownTile { position, .. } => HandError::UnknownTile {
                text: text.to_owned(),
                position,
            },
            other => other,
        })
    }
}

/// One digit of MPSZ text plus its suit letter -> tile. `position` is the
/// character index of the digit, for error messages.
pub(crate) fn tile_from_digit(digit: char, suit: Suit, position: usize) -> Result<Tile, HandError> {
    let Some(value) = digit.to_digit(10) else {
        return Err(HandError::UnknownTile {
            text: digit.to_string(),
            position,
        });
    };
    match suit {
        Suit::Honour => match value {
            1..=7 => Ok(Tile(Suit::Honour.first_id() + value as u8 - 1)),
            _ => Err(HandError::NoSuchHonour {
                text: format!("{value}z"),
                position,
            }),
        },
        // `0` is the red five.
        _ => {
            let number = if value == 0 { 5 } else { value as u8 };
            Ok(Tile(suit.first_id() + number - 1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_text() {
        assert_eq!(Tile::new(0).map(|t| t.to_string()), Some("1m".into()));
        assert_eq!(Tile::new(17).map(|t| t.to_string()), Some("9p".into()));
        assert_eq!(Tile::new(27).map(|t| t.to_string()), Some("1z".into()));
        assert_eq!(Tile::new(34), None);
        for t in Tile::all() {
            assert_eq!(t.to_string().parse::<Tile>(), Ok(t));
            assert_eq!(Tile::from_suit_number(t.suit(), t.number()), Some(t));
        }
        assert_eq!("0s".parse::<Tile>().map(Tile::id), Ok(22));
        assert!("8z".parse::<Tile>().is_err());
        assert!("5x".parse::<Tile>().is_err());
    }
}
