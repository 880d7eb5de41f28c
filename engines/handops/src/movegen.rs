//! Legal-play generation: every distinct play a hand can lead, or every
//! distinct play that beats a given one.
//!
//! Works on the 15-bit rank masks of the hand (ranks with at least 1/2/3/4
//! cards) and builds each play's `CardsVector` by adding shifted nibble runs,
//! so a play costs a few integer operations and one push.

use super::cards::CardsVector;
use super::classify::{run_mask, CHAINABLE};
use super::play::{Play, PlayKind};
use super::rank::Rank;

/// A 1 in each of the lowest `len` nibbles (`len <= 15`).
#[inline]
const fn nibble_run(len: usize) -> u64 {
    ((1u64 << (4 * (len & 15))) - 1) / 15
}

const BLACK: usize = Rank::BlackJoker.index();
const RED: usize = Rank::RedJoker.index();
const BOTH_JOKERS: u64 = (1 << (4 * BLACK)) | (1 << (4 * RED));

/// Every distinct play `hand` can lead (pass excluded), grouped by kind (in
/// [`PlayKind`] order), then key, then chain length.
pub fn legal_plays(hand: CardsVector) -> Vec<Play> {
    // Random 20-card hands average ~80 plays; start there to skip regrowth.
    let mut out = Vec::with_capacity(128);
    legal_plays_into(hand, &mut out);
    out
}

/// Every distinct play in `hand` that beats `to_beat` (bombs and rocket
/// included), in the order of [`legal_plays`]. Empty when `to_beat` is the
/// rocket.
pub fn beating_plays(hand: CardsVector, to_beat: &Play) -> Vec<Play> {
    let mut out = Vec::new();
    beating_plays_into(hand, to_beat, &mut out);
    out
}

/// [`legal_plays`] appending to a caller-owned buffer (no allocation once
/// the buffer has grown to size).
pub fn legal_plays_into(hand: CardsVector, out: &mut Vec<Play>) {
    let mut g = Generator::new(hand, out);
    for kind in PlayKind::ALL {
        g.kind(kind, 0, None);
    }
}

/// [`beating_plays`] appending to a caller-owned buffer.
pub fn beating_plays_into(hand: CardsVector, to_beat: &Play, out: &mut Vec<Play>) {
    let mut g = Generator::new(hand, out);
    let above = to_beat.key.index() + 1;
    match to_beat.kind {
        PlayKind::Rocket => {}
        PlayKind::Bomb => {
            g.kind(PlayKind::Bomb, above, None);
            g.kind(PlayKind::Rocket, 0, None);
        }
        kind => {
            let (lo, hi) = kind.chain_len_range();
            // A play with an impossible chain length is beaten by bombs only.
            if (lo..=hi).contains(&to_beat.chain_len) {
                g.kind(kind, above, Some(to_beat.chain_len as usize));
            }
            g.kind(PlayKind::Bomb, 0, None);
            g.kind(PlayKind::Rocket, 0, None);
        }
    }
}

/// Iterates the set bits of a mask, low to high.
#[inline]
fn bits(mut mask: u16) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(i)
        }
    })
}

/// `count` cards of the rank with index `rank` (< 15), packed.
#[inline]
const fn nib(rank: usize, count: u64) -> u64 {
    count << (4 * rank)
}

struct Generator<'a> {
    /// The hand, packed (always a valid vector).
    hand: u64,
    /// Ranks with at least 1, 2, 3, 4 cards.
    ge: [u16; 4],
    out: &'a mut Vec<Play>,
}

impl<'a> Generator<'a> {
    fn new(hand: CardsVector, out: &'a mut Vec<Play>) -> Self {
        let hand = if CardsVector::is_valid_packed(hand.packed()) {
            hand
        } else {
            // Only reachable through unchecked arithmetic misuse: clamp to a
            // deck so nothing below sees counts above 4.
            let mut counts = hand.to_counts();
            for (i, c) in counts.iter_mut().enumerate() {
                *c = (*c).min(if i >= BLACK { 1 } else { 4 });
            }
            CardsVector::from_counts(counts).unwrap_or(CardsVector::EMPTY)
        };
        Generator {
            hand: hand.packed(),
            ge: hand.rank_masks(),
            out,
        }
    }

    /// Cards of rank index `r` in the hand.
    #[inline]
    fn count(&self, r: usize) -> u8 {
        ((self.hand >> (4 * (r & 15))) & 0xF) as u8
    }

    #[inline]
    fn push(&mut self, kind: PlayKind, key: usize, chain_len: usize, packed: u64) {
        // `key` always comes from a rank mask or chain start below 15.
        if let Some(key) = Rank::from_index(key) {
            self.out.push(Play {
                kind,
                key,
                chain_len: chain_len as u8,
                cards: CardsVector::from_packed_unchecked(packed),
            });
        }
    }

    /// Plays of one kind with key index `>= min_key` and, when given, this
    /// chain length.
    fn kind(&mut self, kind: PlayKind, min_key: usize, only_len: Option<usize>) {
        let keys = if min_key >= 15 {
            0
        } else {
            !((1u16 << min_key) - 1)
        };
        let [g1, g2, g3, g4] = self.ge;
        match kind {
            PlayKind::Single => self.sets(kind, g1 & keys, 1),
            PlayKind::Pair => self.sets(kind, g2 & keys, 2),
            PlayKind::Trio => self.sets(kind, g3 & keys, 3),
            PlayKind::Bomb => self.sets(kind, g4 & keys, 4),
            PlayKind::Rocket => {
                if g1 & (1 << BLACK) != 0 && g1 & (1 << RED) != 0 && min_key <= BLACK {
                    self.push(kind, BLACK, 1, BOTH_JOKERS);
                }
            }
            PlayKind::TrioWithSingle => {
                for t in bits(g3 & keys) {
                    for k in bits(g1 & !(1 << t)) {
                        self.push(kind, t, 1, nib(t, 3) | nib(k, 1));
                    }
                }
            }
            PlayKind::TrioWithPair => {
                for t in bits(g3 & keys) {
                    for k in bits(g2 & !(1 << t)) {
                        self.push(kind, t, 1, nib(t, 3) | nib(k, 2));
                    }
                }
            }
            PlayKind::ChainOfSingles => self.chains(kind, g1, 1, (5, 12), keys, only_len),
            PlayKind::ChainOfPairs => self.chains(kind, g2, 2, (3, 10), keys, only_len),
            PlayKind::ChainOfTrios => self.chains(kind, g3, 3, (2, 6), keys, only_len),
            PlayKind::AirplaneWithSingles | PlayKind::AirplaneWithPairs => {
                let (lo, hi) = kind.chain_len_range();
                for start in bits(g3 & keys & CHAINABLE) {
                    let run = run_length(g3 & CHAINABLE, start);
                    for len in lo as usize..=(hi as usize).min(run) {
                        if only_len.is_some_and(|l| l != len) {
                            continue;
                        }
                        if kind == PlayKind::AirplaneWithSingles {
                            self.airplane_singles(start, len);
                        } else {
                            self.airplane_pairs(start, len);
                        }
                    }
                }
            }
            PlayKind::FourWithTwoSingles => {
                for f in bits(g4 & keys) {
                    let others = g1 & !(1 << f);
                    for a in bits(others) {
                        // Two of one rank, or two ranks a < b (not both jokers).
                        if g2 & (1 << a) != 0 {
                            self.push(kind, f, 1, nib(f, 4) | nib(a, 2));
                        }
                        for b in bits(others & !((2u16 << a) - 1)) {
                            if !(a == BLACK && b == RED) {
                                self.push(kind, f, 1, nib(f, 4) | nib(a, 1) | nib(b, 1));
                            }
                        }
                    }
                }
            }
            PlayKind::FourWithTwoPairs => {
                for f in bits(g4 & keys) {
                    let others = g2 & !(1 << f);
                    for a in bits(others) {
                        for b in bits(others & !((2u16 << a) - 1)) {
                            self.push(kind, f, 1, nib(f, 4) | nib(a, 2) | nib(b, 2));
                        }
                    }
                }
            }
        }
    }

    /// One play of `count` cards per rank in `ranks`.
    fn sets(&mut self, kind: PlayKind, ranks: u16, count: u64) {
        for r in bits(ranks) {
            self.push(kind, r, 1, nib(r, count));
        }
    }

    /// Chains of `width` cards per rank from ranks in `have`.
    fn chains(
        &mut self,
        kind: PlayKind,
        have: u16,
        width: u64,
        (lo, hi): (usize, usize),
        keys: u16,
        only_len: Option<usize>,
    ) {
        let have = have & CHAINABLE;
        for start in bits(have & keys) {
            let run = run_length(have, start);
            for len in lo..=hi.min(run) {
                if only_len.is_none_or(|l| l == len) {
                    self.push(kind, start, len, (nibble_run(len) * width) << (4 * start));
                }
            }
        }
    }

    /// Trio chain `start..start+len` plus `len` single kickers from other
    /// ranks: at most 3 of a rank, at most 2 of a rank adjacent to the chain
    /// (except `2`), not both jokers.
    fn airplane_singles(&mut self, start: usize, len: usize) {
        let chain = run_mask(start, len);
        let base = (nibble_run(len) * 3) << (4 * start);
        let mut cand = [(0usize, 0u8); 15];
        let mut n = 0;
        for r in bits(self.ge[0] & !chain) {
            let adjacent = r + 1 == start || (r == start + len && r <= Rank::Ace.index());
            let cap = self.count(r).min(if adjacent { 2 } else { 3 });
            cand[n] = (r, cap);
            n += 1;
        }
        // suffix[i] = total cards available from cand[i..].
        let mut suffix = [0u8; 16];
        for i in (0..n).rev() {
            suffix[i] = suffix[i + 1] + cand[i].1;
        }
        let key = start;
        self.kickers(&cand[..n], &suffix, 0, len as u8, base, key, len);
    }

    /// Every multiset of `remaining` kickers from `cand[from..]` (rank,
    /// cap): picks the next rank used and how many of it, so each call
    /// below the root emits at least one play.
    #[allow(clippy::too_many_arguments)]
    fn kickers(
        &mut self,
        cand: &[(usize, u8)],
        suffix: &[u8; 16],
        from: usize,
        remaining: u8,
        acc: u64,
        key: usize,
        len: usize,
    ) {
        if remaining == 0 {
            self.push(PlayKind::AirplaneWithSingles, key, len, acc);
            return;
        }
        if suffix.get(from).is_none_or(|&s| s < remaining) {
            return;
        }
        for (j, &(r, cap)) in cand.iter().enumerate().skip(from) {
            // Never both jokers (the red one comes last, after the black).
            if r == RED && acc & nib(BLACK, 1) != 0 {
                continue;
            }
            for take in 1..=cap.min(remaining) {
                self.kickers(
                    cand,
                    suffix,
                    j + 1,
                    remaining - take,
                    acc + nib(r, take as u64),
                    key,
                    len,
                );
            }
        }
    }

    /// Trio chain plus `len` pairs of distinct other ranks.
    fn airplane_pairs(&mut self, start: usize, len: usize) {
        let chain = run_mask(start, len);
        let base = (nibble_run(len) * 3) << (4 * start);
        self.pair_kickers(self.ge[1] & !chain, len, base, start, len);
    }

    fn pair_kickers(&mut self, avail: u16, remaining: usize, acc: u64, key: usize, len: usize) {
        if remaining == 0 {
            self.push(PlayKind::AirplaneWithPairs, key, len, acc);
            return;
        }
        if (avail.count_ones() as usize) < remaining {
            return;
        }
        for r in bits(avail) {
            // Only ranks above r remain for the next pairs: each set once.
            let rest = avail & !((2u16 << r) - 1);
            self.pair_kickers(rest, remaining - 1, acc | nib(r, 2), key, len);
        }
    }
}

/// Number of consecutive set bits of `mask` starting at bit `start`.
#[inline]
fn run_length(mask: u16, start: usize) -> usize {
    ((!mask) >> start).trailing_zeros() as usize
}
