//! Vocabulary types: [`Colour`] and [`Tile`] (a compact one-byte id).

use std::fmt;
use std::str::FromStr;

use super::error::Error;

/// A tile colour. The four standard colours come first; rule sets with more
/// colours use the extra ones in this order.
///
/// Letters: `k` black, `b` blue, `o` orange, `r` red, then `g` green,
/// `p` purple, `y` yellow, `w` white.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Colour {
    Black = 0,
    Blue = 1,
    Orange = 2,
    Red = 3,
    Green = 4,
    Purple = 5,
    Yellow = 6,
    White = 7,
}

impl Colour {
    /// Every colour, in index order.
    pub const ALL: [Colour; 8] = [
        Colour::Black,
        Colour::Blue,
        Colour::Orange,
        Colour::Red,
        Colour::Green,
        Colour::Purple,
        Colour::Yellow,
        Colour::White,
    ];

    /// Index 0..8 of the colour.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The colour with this index, if any.
    pub const fn from_index(index: usize) -> Option<Colour> {
        if index < Colour::ALL.len() {
            Some(Colour::ALL[index])
        } else {
            None
        }
    }

    /// The notation letter (lower case).
    pub const fn letter(self) -> char {
        match self {
            Colour::Black => 'k',
            Colour::Blue => 'b',
            Colour::Orange => 'o',
            Colour::Red => 'r',
            Colour::Green => 'g',
            Colour::Purple => 'p',
            Colour::Yellow => 'y',
            Colour::White => 'w',
        }
    }

    /// The colour of a notation letter (either case).
    pub const fn from_letter(letter: char) -> Option<Colour> {
        match letter.to_ascii_lowercase() {
            'k' => Some(Colour::Black),
            'b' => Some(Colour::Blue),
            'o' => Some(Colour::Orange),
            'r' => Some(Colour::Red),
            'g' => Some(Colour::Green),
            'p' => Some(Colour::Purple),
            'y' => Some(Colour::Yellow),
            'w' => Some(Colour::White),
            _ => None,
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A tile: a number tile (colour and number 1..=31) or a joker.
///
/// Stored in one byte: `colour << 5 | number` for number tiles, `0` for the
/// joker. Whether the number exists in a given [`RuleSet`](super::RuleSet) is
/// checked when tiles are collected into [`TileCounts`](super::TileCounts).
///
/// Ordering: number tiles by colour then number, the joker last.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tile(u8);

impl Tile {
    /// The joker.
    pub const JOKER: Tile = Tile(0);
    /// The largest number a tile can carry.
    pub const MAX_NUMBER: u8 = 31;

    /// The number tile of this colour and number, `None` unless `1 <= number <= 31`.
    pub const fn new(colour: Colour, number: u8) -> Option<Tile> {
        if number >= 1 && number <= Tile::MAX_NUMBER {
            Some(Tile(((colour as u8) << 5) | number))
        } else {
            None
        }
    }

    /// The compact id (0 for the joker).
    pub const fn id(self) -> u8 {
        self.0
    }

    /// The tile with this compact id, if the id is valid.
    pub const fn from_id(id: u8) -> Option<Tile> {
        if id == 0 || id & 31 != 0 {
            Some(Tile(id))
        } else {
            None
        }
    }

    /// Is this the joker?
    pub const fn is_joker(self) -> bool {
        self.0 == 0
    }

    /// The colour of a number tile, `None` for the joker.
    pub const fn colour(self) -> Option<Colour> {
        if self.is_joker() {
            None
        } else {
            Colour::from_index((self.0 >> 5) as usize)
        }
    }

    /// The number of a number tile, `None` for the joker.
    pub const fn number(self) -> Option<u8> {
        if self.is_joker() {
            None
        } else {
            Some(self.0 & 31)
        }
    }

    const fn sort_key(self) -> u16 {
        if self.is_joker() {
            u16::MAX
        } else {
            self.0 as u16
        }
    }
}

impl PartialOrd for Tile {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Tile {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.colour(), self.number()) {
            (Some(colour), Some(number)) => write!(f, "{}{}", colour.letter(), number),
            _ => f.write_str("J"),
        }
    }
}

impl fmt::Debug for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Tile {
    type Err = Error;

    /// Parses `k1`, `b13`, `O7`, `r5`, ... or `J`/`j` for the joker.
    fn from_str(text: &str) -> Result<Tile, Error> {
        let unknown = || Error::UnknownTile {
            text: text.to_owned(),
        };
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("j") {
            return Ok(Tile::JOKER);
        }
        let mut chars = trimmed.chars();
        let colour = chars
            .next()
            .and_then(Colour::from_letter)
            .ok_or_else(unknown)?;
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(unknown());
        }
        let number: u8 = digits.parse().map_err(|_| unknown())?;
        Tile::new(colour, number).ok_or_else(unknown)
    }
}

/// Parses a whitespace- or comma-separated list of tiles, e.g. `"k1 b13 o7 J"`.
pub fn parse_tiles(text: &str) -> Result<Vec<Tile>, Error> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect()
}

/// Formats tiles as space-separated notation, e.g. `k1 b13 J`.
pub fn format_tiles(tiles: &[Tile]) -> String {
    let mut out = String::new();
    for (i, tile) in tiles.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&tile.to_string());
    }
    out
}

const _: () = assert!(std::mem::size_of::<Tile>() == 1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for colour in Colour::ALL {
            for number in 1..=Tile::MAX_NUMBER {
                let tile = Tile::new(colour, number).unwrap();
                assert_eq!(tile.to_string().parse::<Tile>().unwrap(), tile);
                assert_eq!(Tile::from_id(tile.id()), Some(tile));
            }
        }
        assert_eq!("J".parse::<Tile>().unwrap(), Tile::JOKER);
        assert_eq!(Tile::JOKER.to_string(), "J");
    }

    #[test]
    fn rejects_garbage() {
        for text in ["", "k", "k0", "k32", "x3", "k1x", "kk", "k+1", "k001", "JJ"] {
            assert_eq!(
                text.parse::<Tile>(),
                Err(Error::UnknownTile {
                    text: text.to_owned()
                }),
                "{text}"
            );
        }
    }

    #[test]
    fn list() {
        let tiles = parse_tiles("k1, b13  o7 r5 J").unwrap();
        assert_eq!(format_tiles(&tiles), "k1 b13 o7 r5 J");
    }
}
