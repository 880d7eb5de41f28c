//! Layout indices: the 10-card subsets of the 20 unknown cards in lexicographic order
//! of their (sorted) index sets, starting with {0..9}.

use thiserror::Error;

/// Number of ways to split 20 unknown cards 10/10: C(20, 10).
pub const LAYOUT_COUNT: u32 = 184_756;

const UNKNOWN: usize = 20;
const PICK: usize = 10;

const BINOMIAL: [[u32; 21]; 21] = {
    let mut c = [[0u32; 21]; 21];
    let mut n = 0;
    while n <= 20 {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    c
};

const _: () = assert!(BINOMIAL[20][10] == LAYOUT_COUNT);

/// The index set of layout `k` as a bitmask over the 20 unknown-card indices
/// (bit i set: unknown card i goes to the subset seat), or None when `k >= LAYOUT_COUNT`.
pub fn layout_subset(k: u32) -> Option<u32> {
    Cursor::at(0, k).map(|c| c.mask())
}

/// The layouts of `range` in order, as `(index, subset mask)`; computed by successor
/// steps, not by unranking each index.
pub fn layouts(range: std::ops::Range<u32>) -> LayoutIter {
    LayoutOrder::STANDARD.layouts(range)
}

/// Iterator returned by [`layouts`] and [`LayoutOrder::layouts`].
#[derive(Debug, Clone)]
pub struct LayoutIter {
    order: LayoutOrder,
    next: u32,
    end: u32,
    cursor: Option<Cursor>,
}

impl Iterator for LayoutIter {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        if self.next >= self.end {
            return None;
        }
        let cursor = self.cursor.as_mut()?;
        let item = (self.next, self.order.standard_mask(cursor.mask()));
        self.next += 1;
        if self.next < self.end {
            cursor.advance();
        }
        Some(item)
    }
}

/// An order of the layouts: the 20 unknown cards numbered in another order, and the
/// last few of that numbering possibly set apart as a group.
///
/// Without a group, the layouts are listed as in the standard order over the new
/// numbering: the first half are those where the subset seat holds the card numbered
/// first, the quarters split those on the second card, and so on. With a group of `m`
/// cards, the layouts where the subset seat holds fewer of the group come first, and
/// those where it holds as many are listed as in the standard order over the
/// numbering (by which of the other cards it holds, then by which of the group). A
/// count `k` and `m - k` cover as many layouts, so the first half are those where the
/// subset seat holds fewer than half of the group and, when `m` is even, the half of
/// those holding exactly half where it also holds the card numbered first. Workers
/// with a table each that take one part each split on the group's count or on those
/// cards (see [`crate::split_order`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutOrder {
    /// `cards[j]`: the standard number of the card numbered `j`.
    cards: [u8; UNKNOWN],
    /// The group: the last `group` cards of the numbering.
    group: u8,
}

/// Why [`LayoutOrder::new`] refuses an order.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LayoutOrderError {
    #[error("a group of {group} cards: there are 20 unknown cards")]
    Group { group: u32 },
    #[error("{found} card numbers, expected 20 (each of 0..19 once) or none")]
    CardCount { found: usize },
    #[error("card number {card}: the unknown cards are 0..19")]
    CardNumber { card: u32 },
    #[error("card number {card} appears twice")]
    Repeated { card: u32 },
}

impl Default for LayoutOrder {
    fn default() -> LayoutOrder {
        LayoutOrder::STANDARD
    }
}

impl LayoutOrder {
    /// The standard order of layout indices.
    pub const STANDARD: LayoutOrder = {
        let mut cards = [0u8; UNKNOWN];
        let mut j = 0;
        while j < UNKNOWN {
            cards[j] = j as u8;
            j += 1;
        }
        LayoutOrder { cards, group: 0 }
    };

    /// The order numbering the unknown cards `cards[0]`, `cards[1]`, ... (standard
    /// numbers), its last `group` cards a group; empty is the standard numbering.
    /// Else `cards` must hold each of 0..20 once, and `group` be at most 20.
    pub fn new(cards: &[u32], group: u32) -> Result<LayoutOrder, LayoutOrderError> {
        let mut order = LayoutOrder::STANDARD;
        if group > UNKNOWN as u32 {
            return Err(LayoutOrderError::Group { group });
        }
        order.group = group as u8;
        if cards.is_empty() {
            return Ok(order);
        }
        if cards.len() != UNKNOWN {
            return Err(LayoutOrderError::CardCount { found: cards.len() });
        }
        let mut seen = 0u32;
        for (slot, &card) in order.cards.iter_mut().zip(cards) {
            if card >= UNKNOWN as u32 {
                return Err(LayoutOrderError::CardNumber { card });
            }
            if seen & 1 << card != 0 {
                return Err(LayoutOrderError::Repeated { card });
            }
            seen |= 1 << card;
            *slot = card as u8;
        }
        Ok(order)
    }

    /// The standard numbers of the cards in this order's numbering.
    pub fn cards(&self) -> [u32; UNKNOWN] {
        self.cards.map(u32::from)
    }

    /// How many cards, the last of the numbering, form the group (0: none).
    pub fn group(&self) -> u32 {
        u32::from(self.group)
    }

    /// The standard subset mask of a subset mask in this order's numbering.
    pub fn standard_mask(&self, mask: u32) -> u32 {
        let mut rest = mask;
        let mut standard = 0;
        while rest != 0 {
            standard |= 1 << self.cards[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        standard
    }

    /// The layouts at positions `range` of this order, as `(position, standard
    /// subset mask)`; computed by successor steps, not by unranking each position.
    pub fn layouts(self, range: std::ops::Range<u32>) -> LayoutIter {
        LayoutIter {
            order: self,
            next: range.start,
            end: range.end.min(LAYOUT_COUNT),
            cursor: Cursor::at(self.group, range.start),
        }
    }
}

/// A position of a [`LayoutOrder`] with a group of `m` cards, as the subset seat's
/// cards among the others (numbers `0..20 - m`) and of the group (`in_group.n` is
/// `m`).
#[derive(Debug, Clone, Copy)]
struct Cursor {
    others: Combination,
    in_group: Combination,
}

impl Cursor {
    /// Position `position`, or None past the last.
    fn at(group: u8, mut position: u32) -> Option<Cursor> {
        let m = usize::from(group);
        for held in 0..=m.min(PICK) {
            let (others, in_group) = (BINOMIAL[UNKNOWN - m][PICK - held], BINOMIAL[m][held]);
            let count = others * in_group;
            if position < count {
                return Some(Cursor {
                    others: Combination::unrank(UNKNOWN - m, PICK - held, position / in_group),
                    in_group: Combination::unrank(m, held, position % in_group),
                });
            }
            position -= count;
        }
        None
    }

    /// The subset, over the order's numbering.
    fn mask(&self) -> u32 {
        self.others.mask() | self.in_group.mask() << self.others.n
    }

    /// The next position (after the last, some position: callers stop at the end).
    fn advance(&mut self) {
        if self.in_group.advance() || self.others.advance() {
            return;
        }
        let (m, held) = (
            usize::from(self.in_group.n),
            usize::from(self.in_group.k) + 1,
        );
        if held <= m.min(PICK) {
            self.others = Combination::first(UNKNOWN - m, PICK - held);
            self.in_group = Combination::first(m, held);
        }
    }
}

/// A sorted `k`-subset of `0..n` (`k <= 10`, `n <= 20`).
#[derive(Debug, Clone, Copy)]
struct Combination {
    n: u8,
    k: u8,
    a: [u8; PICK],
}

impl Combination {
    /// The first in lexicographic order: `{0..k}`.
    fn first(n: usize, k: usize) -> Combination {
        let mut a = [0u8; PICK];
        for (i, slot) in a.iter_mut().enumerate().take(k) {
            *slot = i as u8;
        }
        Combination {
            n: n as u8,
            k: k as u8,
            a,
        }
    }

    /// The `r`-th in lexicographic order (`r < C(n, k)`).
    fn unrank(n: usize, k: usize, mut r: u32) -> Combination {
        let mut c = Combination::first(n, k);
        let mut x = 0usize;
        for i in 0..k {
            loop {
                // Subsets whose i-th element is x: the rest chosen from above x.
                let count = BINOMIAL[n - 1 - x][k - 1 - i];
                if r < count {
                    break;
                }
                r -= count;
                x += 1;
            }
            c.a[i] = x as u8;
            x += 1;
        }
        c
    }

    fn mask(&self) -> u32 {
        self.a[..usize::from(self.k)]
            .iter()
            .fold(0, |m, &i| m | 1 << i)
    }

    /// The next in lexicographic order; after the last, the first again and false.
    fn advance(&mut self) -> bool {
        let (n, k) = (usize::from(self.n), usize::from(self.k));
        let a = &mut self.a;
        let Some(i) = (0..k).rev().find(|&i| usize::from(a[i]) < n - k + i) else {
            *self = Combination::first(n, k);
            return false;
        };
        a[i] += 1;
        for j in i + 1..k {
            a[j] = a[j - 1] + 1;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn first_and_last() {
        assert_eq!(layout_subset(0), Some(0x3ff));
        assert_eq!(layout_subset(1), Some(0x1ff | 1 << 10));
        assert_eq!(layout_subset(LAYOUT_COUNT - 1), Some(0x3ff << 10));
        assert_eq!(layout_subset(LAYOUT_COUNT), None);
    }

    #[test]
    fn every_order_lists_every_layout_once() {
        let all: HashSet<u32> = layouts(0..LAYOUT_COUNT).map(|(_, m)| m).collect();
        let reversed: Vec<u32> = (0..20).rev().collect();
        let shuffled: Vec<u32> = (0..20).map(|j| (j * 7 + 3) % 20).collect();
        for cards in [reversed, shuffled] {
            let order = LayoutOrder::new(&cards, 0).unwrap();
            let listed: Vec<u32> = order.layouts(0..LAYOUT_COUNT).map(|(_, m)| m).collect();
            assert_eq!(listed.len(), LAYOUT_COUNT as usize);
            assert_eq!(listed.iter().copied().collect::<HashSet<_>>(), all);
            // The first half: the subset seat holds the card numbered first; the
            // first quarter also the second.
            let (first, second) = (1 << cards[0], 1 << cards[1]);
            let half = LAYOUT_COUNT as usize / 2;
            assert!(listed[..half].iter().all(|m| m & first != 0));
            assert!(listed[half..].iter().all(|m| m & first == 0));
            let quarter = 43_758; // C(18, 8): the first card and the second held
            assert!(listed[..quarter].iter().all(|m| m & second != 0));
            assert!(listed[quarter..half].iter().all(|m| m & second == 0));
        }
    }

    /// Per subset seat's cards (standard mask): the same over `cards`' numbering.
    fn numbered(cards: &[u32], standard: u32) -> u32 {
        (0..20)
            .filter(|&j| standard & 1 << cards[j] != 0)
            .fold(0, |m, j| m | 1 << j)
    }

    /// A grouped order's listing found by sorting every layout (a separate oracle):
    /// by how many of the group the subset seat holds, then by its cards' numbers in
    /// ascending order, compared as sequences.
    fn sorted_listing(cards: &[u32], group: u32) -> Vec<u32> {
        let group_bits = ((1u32 << group) - 1) << (20 - group);
        let mut keyed: Vec<(u32, Vec<u32>, u32)> = layouts(0..LAYOUT_COUNT)
            .map(|(_, standard)| {
                let mask = numbered(cards, standard);
                let numbers = (0..20).filter(|&j| mask & 1 << j != 0).collect();
                ((mask & group_bits).count_ones(), numbers, standard)
            })
            .collect();
        keyed.sort();
        keyed.into_iter().map(|(_, _, standard)| standard).collect()
    }

    #[test]
    fn grouped_orders_list_by_the_groups_count_then_by_the_numbering() {
        let shuffled: Vec<u32> = (0..20).map(|j| (j * 7 + 3) % 20).collect();
        let standard: Vec<u32> = (0..20).collect();
        for (cards, group) in [
            (&shuffled, 5),
            (&shuffled, 6),
            (&standard, 4),
            (&standard, 20),
        ] {
            let order = LayoutOrder::new(cards, group).unwrap();
            let listed: Vec<u32> = order.layouts(0..LAYOUT_COUNT).map(|(_, m)| m).collect();
            assert_eq!(listed, sorted_listing(cards, group), "group {group}");
            // Any range starts where the whole listing has it.
            for start in [
                0,
                1,
                3003,
                28_027,
                92_377,
                92_378,
                150_000,
                LAYOUT_COUNT - 1,
            ] {
                let part: Vec<u32> = order
                    .layouts(start..(start + 5000).min(LAYOUT_COUNT))
                    .map(|(_, m)| m)
                    .collect();
                assert_eq!(part, listed[start as usize..start as usize + part.len()]);
            }
        }
    }

    #[test]
    fn a_grouped_orders_halves_split_on_the_groups_count() {
        let shuffled: Vec<u32> = (0..20).map(|j| (j * 7 + 3) % 20).collect();
        let half = LAYOUT_COUNT as usize / 2;
        for group in [3, 5, 4, 6] {
            let order = LayoutOrder::new(&shuffled, group).unwrap();
            let group_bits = ((1u32 << group) - 1) << (20 - group);
            let first = 1 << shuffled[0];
            // Whether a layout belongs in the first half.
            let in_first_half = |standard: u32| {
                let held = (numbered(&shuffled, standard) & group_bits).count_ones();
                2 * held < group || 2 * held == group && standard & first != 0
            };
            let listed: Vec<u32> = order.layouts(0..LAYOUT_COUNT).map(|(_, m)| m).collect();
            assert!(
                listed[..half].iter().all(|&m| in_first_half(m)),
                "group {group}"
            );
            assert!(
                listed[half..].iter().all(|&m| !in_first_half(m)),
                "group {group}"
            );
        }
    }

    #[test]
    fn orders_renumber_the_cards() {
        let cards: Vec<u32> = [5, 0, 1, 2, 3, 4].into_iter().chain(6..20).collect();
        let order = LayoutOrder::new(&cards, 0).unwrap();
        for (position, &standard) in cards.iter().enumerate() {
            assert_eq!(order.standard_mask(1 << position), 1 << standard);
        }
        assert_eq!(order.cards().to_vec(), cards);
        assert_eq!(LayoutOrder::STANDARD.standard_mask(0xabcde), 0xabcde);
        assert_eq!(LayoutOrder::new(&[], 0), Ok(LayoutOrder::STANDARD));
    }

    #[test]
    fn orders_that_are_not_permutations_are_refused() {
        let mut twice: Vec<u32> = (0..20).collect();
        twice[19] = 4;
        let mut past: Vec<u32> = (0..20).collect();
        past[3] = 20;
        for (cards, why) in [
            (twice, "4 appears twice"),
            (past, "card number 20"),
            ((0..19).collect(), "19 card numbers"),
        ] {
            let error = LayoutOrder::new(&cards, 0).unwrap_err().to_string();
            assert!(error.contains(why), "{error}");
        }
        let error = LayoutOrder::new(&[], 21).unwrap_err();
        assert_eq!(error, LayoutOrderError::Group { group: 21 });
        assert!(error.to_string().contains("a group of 21 cards"), "{error}");
    }

    #[test]
    fn successor_matches_unrank() {
        for (k, mask) in layouts(0..3000).chain(layouts(90_000..92_000)) {
            assert_eq!(layout_subset(k), Some(mask), "layout {k}");
        }
        assert_eq!(layouts(LAYOUT_COUNT - 2..LAYOUT_COUNT + 5).count(), 2);
    }
}
