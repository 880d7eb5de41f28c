//! `classify`: which play (if any) a multiset of cards is.

use super::cards::CardsVector;
use super::play::{Play, PlayKind};
use super::rank::Rank;

/// Ranks `3`..`A` (bits 0..=11): the only ranks allowed in chains.
pub(crate) const CHAINABLE: u16 = 0x0FFF;
const JOKERS: u16 = (1 << Rank::BlackJoker.index()) | (1 << Rank::RedJoker.index());

/// `len` consecutive bits starting at `start` (`len <= 15`).
#[inline]
pub(crate) const fn run_mask(start: usize, len: usize) -> u16 {
    (((1u32 << len) - 1) << start) as u16
}

/// The lowest rank in a non-empty mask.
#[inline]
fn lowest(mask: u16) -> Option<Rank> {
    Rank::from_index(mask.trailing_zeros() as usize)
}

/// Whether `mask` is one block of consecutive bits.
#[inline]
const fn is_run(mask: u16) -> bool {
    mask != 0 && {
        let shifted = mask >> mask.trailing_zeros();
        shifted & (shifted.wrapping_add(1)) == 0
    }
}

/// The play these cards make, or `None` (also for no cards).
///
/// Every valid multiset has exactly one reading under the rules in the
/// [module docs](super), so no tie-breaking is needed; notably `33334444` is
/// no play (the two pairs of a four-with-two-pairs must be of distinct ranks,
/// and airplane kickers must come from outside the chain), and a trio
/// adjacent to a trio chain is never a kicker (it would extend the chain).
pub fn classify(cards: CardsVector) -> Option<Play> {
    // Vectors built with `add`/`remove_unchecked` misuse are not plays.
    CardsVector::from_packed(cards.packed()).ok()?;
    let n = cards.len();
    let counts = cards.to_counts();
    let [m1, m2, m3, m4] = cards.rank_masks();
    let distinct = m1.count_ones();
    let play = |kind, key: Rank, chain_len: usize| {
        Some(Play {
            kind,
            key,
            chain_len: chain_len as u8,
            cards,
        })
    };
    let low = lowest(m1)?;

    if distinct == 1 {
        let kind = match n {
            1 => PlayKind::Single,
            2 => PlayKind::Pair,
            3 => PlayKind::Trio,
            4 => PlayKind::Bomb,
            _ => return None,
        };
        return play(kind, low, 1);
    }
    if m1 == JOKERS && n == 2 {
        return play(PlayKind::Rocket, Rank::BlackJoker, 1);
    }

    // Chains: every present rank has the same count and they form one run.
    if m1 & !CHAINABLE == 0 && is_run(m1) {
        let len = distinct as usize;
        if m2 == 0 && (5..=12).contains(&len) {
            return play(PlayKind::ChainOfSingles, low, len);
        }
        if m2 == m1 && m3 == 0 && (3..=10).contains(&len) {
            return play(PlayKind::ChainOfPairs, low, len);
        }
        if m3 == m1 && m4 == 0 && (2..=6).contains(&len) {
            return play(PlayKind::ChainOfTrios, low, len);
        }
    }

    // Trio + kicker: exactly one trio (not a four) and one other rank.
    if distinct == 2 && m4 == 0 && m3.count_ones() == 1 {
        let trio = lowest(m3)?;
        match n {
            4 => return play(PlayKind::TrioWithSingle, trio, 1),
            5 => return play(PlayKind::TrioWithPair, trio, 1),
            _ => {}
        }
    }

    // Four + kickers.
    if m4.count_ones() == 1 {
        let four = lowest(m4)?;
        let others = m1 & !m4;
        if n == 6 && others != JOKERS {
            return play(PlayKind::FourWithTwoSingles, four, 1);
        }
        // Two distinct other ranks with exactly two cards each.
        if n == 8 && others.count_ones() == 2 && m2 & !m4 == others && m3 & !m4 == 0 {
            return play(PlayKind::FourWithTwoPairs, four, 1);
        }
    }

    // Airplanes: a run of exactly-three trios plus kickers outside it.
    let trio_ranks = m3 & !m4 & CHAINABLE;
    if n.is_multiple_of(4) && (2..=5).contains(&(n / 4)) {
        let len = n / 4;
        if let Some(key) = find_airplane_with_singles(&counts, trio_ranks, m1, m4, len) {
            return play(PlayKind::AirplaneWithSingles, key, len);
        }
    }
    if n.is_multiple_of(5) && (2..=4).contains(&(n / 5)) {
        let len = n / 5;
        // Kickers: every other rank present has exactly two cards, and L of them.
        for start in 0..=(12 - len) {
            let chain = run_mask(start, len);
            if trio_ranks & chain == chain {
                let others = m1 & !chain;
                if m2 & others == others && m3 & others == 0 && others.count_ones() as usize == len
                {
                    return play(PlayKind::AirplaneWithPairs, Rank::from_index(start)?, len);
                }
            }
        }
    }
    None
}

/// The key of the trio chain of length `len` that makes these cards an
/// airplane with singles, if any.
fn find_airplane_with_singles(
    counts: &[u8; 15],
    trio_ranks: u16,
    present: u16,
    fours: u16,
    len: usize,
) -> Option<Rank> {
    if fours != 0 || present & JOKERS == JOKERS {
        return None;
    }
    for start in 0..=(12 - len) {
        let chain = run_mask(start, len);
        if trio_ranks & chain != chain {
            continue;
        }
        // A third card just below/above the chain would extend it (2 excepted).
        let below_ok = start == 0 || counts.get(start - 1).is_some_and(|&c| c <= 2);
        let above = start + len;
        let above_ok = above >= Rank::Two.index() || counts.get(above).is_some_and(|&c| c <= 2);
        if below_ok && above_ok {
            return Rank::from_index(start);
        }
    }
    None
}
