//! Layout indices: the 10-card subsets of the 20 unknown cards in lexicographic order
//! of their (sorted) index sets, starting with {0..9}.

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
    unrank(k).map(|c| c.mask())
}

/// The layouts of `range` in order, as `(index, subset mask)`; computed by successor
/// steps, not by unranking each index.
pub fn layouts(range: std::ops::Range<u32>) -> LayoutIter {
    let end = range.end.min(LAYOUT_COUNT);
    LayoutIter {
        next: range.start,
        end,
        combo: unrank(range.start),
    }
}

/// Iterator returned by [`layouts`].
#[derive(Debug, Clone)]
pub struct LayoutIter {
    next: u32,
    end: u32,
    combo: Option<Combination>,
}

impl Iterator for LayoutIter {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        if self.next >= self.end {
            return None;
        }
        let combo = self.combo.as_mut()?;
        let item = (self.next, combo.mask());
        self.next += 1;
        if self.next < self.end {
            combo.advance();
        }
        Some(item)
    }
}

/// An order of the layouts: the 20 unknown cards numbered in another order, the
/// layouts listed as in the standard order over that numbering. Its first half are
/// the layouts where the subset seat holds the card numbered first, its quarters
/// split those on the second card, and so on: workers with a table each that take
/// one part each split on those cards (see [`crate::split_order`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutOrder {
    /// `cards[j]`: the standard number of the card numbered `j`.
    cards: [u8; UNKNOWN],
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
        LayoutOrder { cards }
    };

    /// The order numbering the unknown cards `cards[0]`, `cards[1]`, ... (standard
    /// numbers); empty is the standard order. Else `cards` must hold each of 0..20
    /// once: the error says what is wrong.
    pub fn new(cards: &[u32]) -> Result<LayoutOrder, String> {
        if cards.is_empty() {
            return Ok(LayoutOrder::STANDARD);
        }
        if cards.len() != UNKNOWN {
            return Err(format!(
                "{} card numbers, expected 20 (each of 0..19 once) or none",
                cards.len()
            ));
        }
        let mut order = [0u8; UNKNOWN];
        let mut seen = 0u32;
        for (slot, &card) in order.iter_mut().zip(cards) {
            if card >= UNKNOWN as u32 {
                return Err(format!("card number {card}: the unknown cards are 0..19"));
            }
            if seen & 1 << card != 0 {
                return Err(format!("card number {card} appears twice"));
            }
            seen |= 1 << card;
            *slot = card as u8;
        }
        Ok(LayoutOrder { cards: order })
    }

    /// The standard numbers of the cards in this order's numbering.
    pub fn cards(&self) -> [u32; UNKNOWN] {
        self.cards.map(u32::from)
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
    /// subset mask)`.
    pub fn layouts(self, range: std::ops::Range<u32>) -> impl Iterator<Item = (u32, u32)> {
        layouts(range).map(move |(position, mask)| (position, self.standard_mask(mask)))
    }
}

/// A sorted 10-subset of 0..20.
#[derive(Debug, Clone, Copy)]
struct Combination([u8; PICK]);

impl Combination {
    fn mask(&self) -> u32 {
        self.0.iter().fold(0, |m, &i| m | 1 << i)
    }

    /// Next subset in lexicographic order (no-op after the last).
    fn advance(&mut self) {
        let a = &mut self.0;
        let Some(i) = (0..PICK)
            .rev()
            .find(|&i| (a[i] as usize) < UNKNOWN - PICK + i)
        else {
            return;
        };
        a[i] += 1;
        for j in i + 1..PICK {
            a[j] = a[j - 1] + 1;
        }
    }
}

fn unrank(mut k: u32) -> Option<Combination> {
    if k >= LAYOUT_COUNT {
        return None;
    }
    let mut a = [0u8; PICK];
    let mut x = 0usize;
    for (i, slot) in a.iter_mut().enumerate() {
        loop {
            // Subsets whose i-th element is x: choose the remaining ones from above x.
            let count = BINOMIAL[UNKNOWN - 1 - x][PICK - 1 - i];
            if k < count {
                break;
            }
            k -= count;
            x += 1;
        }
        *slot = x as u8;
        x += 1;
    }
    Some(Combination(a))
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
            let order = LayoutOrder::new(&cards).unwrap();
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

    #[test]
    fn orders_renumber_the_cards() {
        let cards: Vec<u32> = [5, 0, 1, 2, 3, 4].into_iter().chain(6..20).collect();
        let order = LayoutOrder::new(&cards).unwrap();
        for (position, &standard) in cards.iter().enumerate() {
            assert_eq!(order.standard_mask(1 << position), 1 << standard);
        }
        assert_eq!(order.cards().to_vec(), cards);
        assert_eq!(LayoutOrder::STANDARD.standard_mask(0xabcde), 0xabcde);
        assert_eq!(LayoutOrder::new(&[]), Ok(LayoutOrder::STANDARD));
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
            let error = LayoutOrder::new(&cards).unwrap_err();
            assert!(error.contains(why), "{error}");
        }
    }

    #[test]
    fn successor_matches_unrank() {
        for (k, mask) in layouts(0..3000).chain(layouts(90_000..92_000)) {
            assert_eq!(layout_subset(k), Some(mask), "layout {k}");
        }
        assert_eq!(layouts(LAYOUT_COUNT - 2..LAYOUT_COUNT + 5).count(), 2);
    }
}
