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

/// An order of the layouts: the standard numbering of the 20 unknown cards with one
/// card moved to the front, the layouts listed as in the standard order over that
/// numbering. The first half of the layouts are those where the subset seat holds
/// that card, so workers with a table each that take one half each split on it
/// (see [`crate::split_order`]). Card 0 first is the standard order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LayoutOrder {
    first_card: u8,
}

impl LayoutOrder {
    /// The standard order of layout indices.
    pub const STANDARD: LayoutOrder = LayoutOrder { first_card: 0 };

    /// The order that numbers unknown card `card` (0..20, standard numbering) first,
    /// or None when there is no such card.
    pub fn starting_with(card: u32) -> Option<LayoutOrder> {
        (card < UNKNOWN as u32).then_some(LayoutOrder {
            first_card: card as u8,
        })
    }

    /// The unknown card numbered first, in the standard numbering.
    pub fn first_card(self) -> u32 {
        u32::from(self.first_card)
    }

    /// The standard subset mask of a subset mask in this order's numbering.
    pub fn standard_mask(self, mask: u32) -> u32 {
        let first = u32::from(self.first_card);
        // Bit 0 is the first card; bits 1..=first are cards 0..first; the rest stay.
        let below = (1u32 << first) - 1;
        (mask & 1) << first | (mask >> 1) & below | mask & !(below << 1 | 1)
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
        for first in [0, 1, 7, 19] {
            let order = LayoutOrder::starting_with(first).unwrap();
            let listed: Vec<u32> = order.layouts(0..LAYOUT_COUNT).map(|(_, m)| m).collect();
            assert_eq!(listed.len(), LAYOUT_COUNT as usize);
            assert_eq!(
                listed.iter().copied().collect::<HashSet<_>>(),
                all,
                "{first}"
            );
            // The first half: the subset seat holds the card numbered first.
            let half = LAYOUT_COUNT as usize / 2;
            assert!(
                listed[..half].iter().all(|m| m & 1 << first != 0),
                "{first}"
            );
            assert!(
                listed[half..].iter().all(|m| m & 1 << first == 0),
                "{first}"
            );
        }
        assert_eq!(LayoutOrder::starting_with(20), None);
    }

    #[test]
    fn order_renumbers_by_moving_one_card_first() {
        let order = LayoutOrder::starting_with(5).unwrap();
        // Positions 0..6 of the order are cards 5, 0, 1, 2, 3, 4; then 6, 7, ...
        let expect = [5, 0, 1, 2, 3, 4, 6, 7, 19];
        for (position, standard) in [0, 1, 2, 3, 4, 5, 6, 7, 19].into_iter().zip(expect) {
            assert_eq!(order.standard_mask(1 << position), 1 << standard);
        }
        assert_eq!(LayoutOrder::STANDARD.standard_mask(0xabcde), 0xabcde);
    }

    #[test]
    fn successor_matches_unrank() {
        for (k, mask) in layouts(0..3000).chain(layouts(90_000..92_000)) {
            assert_eq!(layout_subset(k), Some(mask), "layout {k}");
        }
        assert_eq!(layouts(LAYOUT_COUNT - 2..LAYOUT_COUNT + 5).count(), 2);
    }
}
