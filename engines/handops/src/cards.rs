//! `CardsVector`: a multiset of Dou Dizhu cards packed in one `u64`.

use std::fmt;
use std::str::FromStr;

use super::error::CardsError;
use super::rank::Rank;

/// The seed's mask: the high bit of every nibble.
const HIGH_BITS: u64 = 0x8888_8888_8888_8888;
/// Bit 0 of each of the 15 rank nibbles.
const LOW_BITS: u64 = 0x0111_1111_1111_1111;
/// Nibble 15, always zero in a valid vector.
const RESERVED: u64 = 0xF000_0000_0000_0000;
/// Bits 1..3 of the two joker nibbles (13 and 14): a joker count must be 0 or 1.
const JOKER_EXCESS: u64 = 0x0EE0_0000_0000_0000;

/// A multiset of cards: nibble `i` (bits `4i..4i+3`) holds the count of the
/// rank with index `i` (see [`Rank`]); nibble 15 is always 0.
///
/// Invariant (kept by every checked constructor): at most 4 cards of a rank,
/// at most 1 of each joker. The `*_unchecked`/[`add`](Self::add) operations
/// leave it to the caller; on misuse the result is some unspecified vector,
/// never undefined behaviour or a panic.
///
/// The ordering is the one of the packed integers: total, but without meaning.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct CardsVector(u64);

/// Spreads bit 0 of every nibble of `x` (other bits must be zero) into a
/// 16-bit mask: bit `i` = bit `4i` of `x`.
#[inline]
pub(crate) const fn gather_nibble_bits(x: u64) -> u16 {
    let x = (x | (x >> 3)) & 0x0303_0303_0303_0303;
    let x = (x | (x >> 6)) & 0x000F_000F_000F_000F;
    let x = (x | (x >> 12)) & 0x0000_00FF_0000_00FF;
    ((x | (x >> 24)) & 0xFFFF) as u16
}

/// Nibbles of `v` holding 5 or more, as bit 0 of each nibble.
#[inline]
const fn nibbles_over_four(v: u64) -> u64 {
    ((v >> 3) | ((v >> 2) & ((v >> 1) | v))) & 0x1111_1111_1111_1111
}

impl CardsVector {
    /// No cards.
    pub const EMPTY: CardsVector = CardsVector(0);

    /// The full 54-card deck: four of `3`..`2`, one of each joker.
    pub const FULL_DECK: CardsVector = CardsVector(0x0114_4444_4444_4444);

    /// Builds from a raw packed value without validation; internal only.
    #[inline]
    pub(crate) const fn from_packed_unchecked(packed: u64) -> CardsVector {
        CardsVector(packed)
    }

    /// Whether a packed value is a valid vector (see [`from_packed`](Self::from_packed)).
    #[inline]
    pub(crate) const fn is_valid_packed(packed: u64) -> bool {
        packed & (RESERVED | JOKER_EXCESS) == 0 && nibbles_over_four(packed) == 0
    }

    /// Validates a packed value: nibble 15 zero, every nibble at most 4,
    /// the joker nibbles (13, 14) at most 1.
    pub const fn from_packed(packed: u64) -> Result<CardsVector, CardsError> {
        if packed & RESERVED != 0 {
            return Err(CardsError::ReservedNibble { packed });
        }
        if nibbles_over_four(packed) == 0 && packed & JOKER_EXCESS == 0 {
            return Ok(CardsVector(packed));
        }
        // Slow path only to name the first offending rank.
        let mut i = 0;
        while i < Rank::COUNT {
            let rank = Rank::ALL[i];
            let value = ((packed >> (4 * i)) & 0xF) as u8;
            if value > rank.max_copies() {
                return Err(CardsError::NibbleOverflow {
                    rank,
                    value,
                    max: rank.max_copies(),
                });
            }
            i += 1;
        }
        // Unreachable when the fast checks above agree with the loop.
        Err(CardsError::ReservedNibble { packed })
    }

    /// Builds from per-rank counts (index = `Rank::index()`).
    pub const fn from_counts(counts: [u8; 15]) -> Result<CardsVector, CardsError> {
        let mut packed = 0u64;
        let mut i = 0;
        while i < Rank::COUNT {
            let rank = Rank::ALL[i];
            let count = counts[i];
            if count > rank.max_copies() {
                return Err(CardsError::TooMany {
                    rank,
                    count,
                    max: rank.max_copies(),
                });
            }
            packed |= (count as u64) << (4 * i);
            i += 1;
        }
        Ok(CardsVector(packed))
    }

    /// Per-rank counts (index = `Rank::index()`).
    pub const fn to_counts(self) -> [u8; 15] {
        let mut counts = [0u8; 15];
        let mut i = 0;
        while i < Rank::COUNT {
            counts[i] = ((self.0 >> (4 * i)) & 0xF) as u8;
            i += 1;
        }
        counts
    }

    /// The packed value (nibble `i` = count of rank `i`).
    #[inline]
    pub const fn packed(self) -> u64 {
        self.0
    }

    /// Whether `other` is a sub-multiset of `self` (SWAR: set the high bit of
    /// every nibble, subtract, and check that no nibble borrowed it back).
    #[inline]
    pub const fn contains(self, other: CardsVector) -> bool {
        (self.0 | HIGH_BITS).wrapping_sub(other.0) & HIGH_BITS == HIGH_BITS
    }

    /// `self - other` as plain subtraction. The caller guarantees
    /// `self.contains(other)`; otherwise the result is unspecified.
    #[inline]
    pub const fn remove_unchecked(self, other: CardsVector) -> CardsVector {
        CardsVector(self.0.wrapping_sub(other.0))
    }

    /// `self - other`, or `None` when `other` is not contained in `self`.
    #[inline]
    pub const fn checked_remove(self, other: CardsVector) -> Option<CardsVector> {
        if self.contains(other) {
            Some(self.remove_unchecked(other))
        } else {
            None
        }
    }

    /// `self + other` as plain addition. The caller guarantees the sum stays
    /// within one deck (e.g. both are disjoint parts of one hand); otherwise the
    /// result is unspecified. Use [`checked_add`](Self::checked_add) on untrusted input.
    #[inline]
    pub const fn add(self, other: CardsVector) -> CardsVector {
        CardsVector(self.0.wrapping_add(other.0))
    }

    /// `self + other`, or `None` when the sum holds more than 4 of a rank or
    /// more than 1 of a joker.
    #[inline]
    pub const fn checked_add(self, other: CardsVector) -> Option<CardsVector> {
        // Both valid: every nibble sum is at most 8, so no carry crosses nibbles.
        let sum = self.0.wrapping_add(other.0);
        if nibbles_over_four(sum) == 0 && sum & (JOKER_EXCESS | RESERVED) == 0 {
            Some(CardsVector(sum))
        } else {
            None
        }
    }

    /// Total number of cards.
    #[inline]
    pub const fn len(self) -> usize {
        let bytes = (self.0 & 0x0F0F_0F0F_0F0F_0F0F) + ((self.0 >> 4) & 0x0F0F_0F0F_0F0F_0F0F);
        (bytes.wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize
    }

    /// No cards at all.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of cards of `rank`.
    #[inline]
    pub const fn count(self, rank: Rank) -> u8 {
        ((self.0 >> (4 * rank.index())) & 0xF) as u8
    }

    /// The same cards with the count of `rank` replaced by `count`.
    pub const fn with_count(self, rank: Rank, count: u8) -> Result<CardsVector, CardsError> {
        if count > rank.max_copies() {
            return Err(CardsError::TooMany {
                rank,
                count,
                max: rank.max_copies(),
            });
        }
        let shift = 4 * rank.index();
        Ok(CardsVector(
            (self.0 & !(0xF << shift)) | ((count as u64) << shift),
        ))
    }

    /// Ranks present with at least 1, 2, 3 and 4 cards, as 15-bit masks
    /// (bit `i` = rank index `i`).
    #[inline]
    pub(crate) const fn rank_masks(self) -> [u16; 4] {
        let v = self.0 & !RESERVED;
        let ge1 = (v | (v >> 1) | (v >> 2) | (v >> 3)) & LOW_BITS;
        let ge2 = ((v >> 1) | (v >> 2) | (v >> 3)) & LOW_BITS;
        let ge3 = ((v >> 2) | (v >> 3) | (v & (v >> 1))) & LOW_BITS;
        let ge4 = ((v >> 2) | (v >> 3)) & LOW_BITS;
        [
            gather_nibble_bits(ge1),
            gather_nibble_bits(ge2),
            gather_nibble_bits(ge3),
            gather_nibble_bits(ge4),
        ]
    }

    /// The ranks present, low to high, with their counts (zero counts skipped).
    #[inline]
    pub fn iter(self) -> Iter {
        Iter {
            rest: self.0 & !RESERVED,
            index: 0,
        }
    }
}

/// Iterator over `(Rank, count)` of the ranks present, low to high.
#[derive(Clone, Debug)]
pub struct Iter {
    rest: u64,
    index: usize,
}

impl Iterator for Iter {
    type Item = (Rank, u8);

    #[inline]
    fn next(&mut self) -> Option<(Rank, u8)> {
        if self.rest == 0 {
            return None;
        }
        let skip = (self.rest.trailing_zeros() / 4) as usize;
        self.index += skip;
        self.rest >>= 4 * skip;
        let count = (self.rest & 0xF) as u8;
        let rank = Rank::from_index(self.index)?;
        self.rest >>= 4;
        self.index += 1;
        Some((rank, count))
    }
}

impl IntoIterator for CardsVector {
    type Item = (Rank, u8);
    type IntoIter = Iter;

    fn into_iter(self) -> Iter {
        self.iter()
    }
}

impl TryFrom<u64> for CardsVector {
    type Error = CardsError;

    fn try_from(packed: u64) -> Result<Self, Self::Error> {
        CardsVector::from_packed(packed)
    }
}

impl TryFrom<[u8; 15]> for CardsVector {
    type Error = CardsError;

    fn try_from(counts: [u8; 15]) -> Result<Self, Self::Error> {
        CardsVector::from_counts(counts)
    }
}

impl From<CardsVector> for u64 {
    fn from(cards: CardsVector) -> u64 {
        cards.packed()
    }
}

impl FromStr for CardsVector {
    type Err = CardsError;

    /// Text such as `"34556677778888999TTT"`: order free, whitespace ignored,
    /// `10` read as `T`, lower-case letters accepted. Positions in errors are
    /// 0-based character indices.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut counts = [0u8; 15];
        let mut chars = s.chars().enumerate().peekable();
        while let Some((position, c)) = chars.next() {
            if c.is_whitespace() {
                continue;
            }
            let rank = if c == '1' {
                match chars.peek() {
                    Some(&(_, '0')) => {
                        chars.next();
                        Rank::Ten
                    }
                    _ => {
                        return Err(CardsError::UnknownRank {
                            text: c.to_string(),
                            position,
                        })
                    }
                }
            } else {
                Rank::from_char(c).ok_or_else(|| CardsError::UnknownRank {
                    text: c.to_string(),
                    position,
                })?
            };
            let slot = &mut counts[rank.index()];
            if *slot >= rank.max_copies() {
                return Err(CardsError::TooManyCopies {
                    rank,
                    position,
                    max: rank.max_copies(),
                });
            }
            *slot += 1;
        }
        CardsVector::from_counts(counts)
    }
}

impl fmt::Display for CardsVector {
    /// Canonical text, ranks low to high (`""` for no cards).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (rank, count) in self.iter() {
            for _ in 0..count {
                write!(f, "{}", rank.to_char())?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for CardsVector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CardsVector(\"{self}\", {:#018x})", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_masks_match_counts() {
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Arbitrary nibbles 0..=15, nibble 15 cleared: masks must still be exact.
            let v = CardsVector(x & !RESERVED);
            let masks = v.rank_masks();
            for (k, mask) in masks.iter().enumerate() {
                for i in 0..15 {
                    let count = (v.0 >> (4 * i)) & 0xF;
                    assert_eq!(
                        mask >> i & 1 == 1,
                        count > k as u64,
                        "{v:?} rank {i} >= {}",
                        k + 1
                    );
                }
                assert_eq!(mask >> 15, 0);
            }
        }
    }
}
