//! Strains and contracts.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::cards::Suit;

/// What the deal is played in. Misère is played without trumps; the declarer wants no tricks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strain {
    Trump(Suit),
    NoTrump,
    Misere,
}

impl Strain {
    pub const fn trump(self) -> Option<Suit> {
        match self {
            Strain::Trump(s) => Some(s),
            _ => None,
        }
    }

    pub const fn is_misere(self) -> bool {
        matches!(self, Strain::Misere)
    }
}

impl fmt::Display for Strain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strain::Trump(s) => write!(f, "{s}"),
            Strain::NoTrump => f.write_str("NT"),
            Strain::Misere => f.write_str("misere"),
        }
    }
}

/// A contract: level 6..=10 (None when unknown, as in `?H`) and strain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Contract {
    pub level: Option<u8>,
    pub strain: Strain,
}

/// Errors reading a contract.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ContractError {
    #[error("unknown contract `{text}` (expected e.g. 6S, 7H, 10C, 6NT, ?H, misere)")]
    Unknown { text: String },
    #[error("contract level {level} in `{text}` is out of range 6..=10")]
    Level { level: u32, text: String },
}

impl Contract {
    pub const fn misere() -> Contract {
        Contract {
            level: None,
            strain: Strain::Misere,
        }
    }

    /// Whether the declarer makes the contract with this many tricks
    /// (misère: no tricks; otherwise at least the level, 6 when unknown).
    pub const fn makes(self, declarer_tricks: u8) -> bool {
        match self.strain {
            Strain::Misere => declarer_tricks == 0,
            _ => {
                let level = match self.level {
                    Some(l) => l,
                    None => 6,
                };
                declarer_tricks >= level
            }
        }
    }
}

impl fmt::Display for Contract {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.strain, self.level) {
            (Strain::Misere, _) => f.write_str("misere"),
            (s, Some(l)) => write!(f, "{l}{s}"),
            (s, None) => write!(f, "?{s}"),
        }
    }
}

impl FromStr for Contract {
    type Err = ContractError;

    /// `6S`, `7H`, `8D`, `10C`, `6NT`, `?H`, `misere` / `mizer` / `miser`.
    fn from_str(s: &str) -> Result<Contract, ContractError> {
        let text = s.trim();
        let unknown = || ContractError::Unknown {
            text: text.to_string(),
        };
        let lower = text.to_ascii_lowercase();
        if matches!(lower.as_str(), "misere" | "mizer" | "miser" | "misère") {
            return Ok(Contract::misere());
        }
        let split = lower
            .find(|c: char| c.is_ascii_alphabetic())
            .ok_or_else(unknown)?;
        let (level_text, strain_text) = lower.split_at(split);
        let strain = match strain_text {
            "s" => Strain::Trump(Suit::Spades),
            "h" => Strain::Trump(Suit::Hearts),
            "d" => Strain::Trump(Suit::Diamonds),
            "c" => Strain::Trump(Suit::Clubs),
            "nt" | "n" => Strain::NoTrump,
            _ => return Err(unknown()),
        };
        let level = match level_text {
            "?" => None,
            digits => {
                let level: u32 = digits.parse().map_err(|_| unknown())?;
                if !(6..=10).contains(&level) {
                    return Err(ContractError::Level {
                        level,
                        text: text.to_string(),
                    });
                }
                Some(level as u8)
            }
        };
        Ok(Contract { level, strain })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_contracts() {
        let c: Contract = "10C".parse().unwrap();
        assert_eq!(c.level, Some(10));
        assert_eq!(c.strain, Strain::Trump(Suit::Clubs));
        assert_eq!("6NT".parse::<Contract>().unwrap().strain, Strain::NoTrump);
        assert_eq!("mizer".parse::<Contract>().unwrap(), Contract::misere());
        let q: Contract = "?H".parse().unwrap();
        assert_eq!(q.level, None);
        assert!(q.makes(6) && !q.makes(5));
        assert!(matches!(
            "5S".parse::<Contract>(),
            Err(ContractError::Level { level: 5, .. })
        ));
        assert!("7X".parse::<Contract>().is_err());
        assert!(Contract::misere().makes(0) && !Contract::misere().makes(1));
        assert_eq!("8D".parse::<Contract>().unwrap().to_string(), "8D");
    }
}
