//! History heuristic: cards that caused cut-offs, in a row per seat (the search picks
//! each seat's row: in misère the defenders share one), kept across solves of one
//! strain with the same cards out of play (neighbouring layouts of an all-foe run share
//! most good plays; another analysis starts afresh).

#[derive(Clone, Default)]
pub(crate) struct History {
    counts: [[u32; 32]; 3],
    /// [`History::bonus`] of each count, kept beside it: a cut-off is recorded far
    /// less often than a card is scored.
    bonuses: [[u16; 32]; 3],
}

impl History {
    /// Adds `weight` to the count of `card` played by `seat`.
    #[inline]
    pub fn record(&mut self, seat: usize, card: u8, weight: u32) {
        let card = usize::from(card & 31);
        let c = &mut self.counts[seat][card];
        *c = c.saturating_add(weight);
        self.bonuses[seat][card] = bonus_of(*c);
    }

    /// The ordering bonus of `card` played by `seat`: see [`bonus_of`].
    #[inline]
    pub fn bonus(&self, seat: usize, card: u8) -> i32 {
        i32::from(self.bonuses[seat][usize::from(card & 31)])
    }

    /// Divides the count of `card` played by `seat` by four (two doublings less): a
    /// lead tried before the one that gave the cut-off (see `Search::trick_start`).
    #[inline]
    pub fn demote(&mut self, seat: usize, card: u8) {
        let card = usize::from(card & 31);
        let c = &mut self.counts[seat][card];
        *c /= 4;
        self.bonuses[seat][card] = bonus_of(*c);
    }

    pub fn clear(&mut self) {
        *self = History::default();
    }
}

/// The ordering bonus of a count: its bit length (about its log2) in sixteenths,
/// 0..=527. The fraction tells apart counts of one bit length; the log keeps old large
/// counts from outweighing recent ones (raw counts measured far worse).
fn bonus_of(c: u32) -> u16 {
    let bits = u32::BITS - c.leading_zeros();
    // The four bits after the leading one (fewer for short counts).
    let fraction = if bits > 5 {
        (c >> (bits - 5)) & 15
    } else {
        (c << (5 - bits)) & 15
    };
    (bits * 16 + fraction) as u16
}

#[cfg(test)]
mod tests {
    use super::History;
    use proptest::prelude::*;

    fn bonus_of(count: u32) -> i32 {
        i32::from(super::bonus_of(count))
    }

    proptest! {
        /// The bonus grows with the count, and its whole part is the count's bit length.
        #[test]
        fn bonus_is_the_log2_in_sixteenths(a in any::<u32>(), b in any::<u32>()) {
            let (lo, hi) = (a.min(b), a.max(b));
            prop_assert!(bonus_of(lo) <= bonus_of(hi));
            prop_assert_eq!(bonus_of(a) >> 4, (u32::BITS - a.leading_zeros()) as i32);
        }
    }

    proptest! {
        /// A card's bonus is that of its count, the sum of its recorded weights
        /// (saturating), whatever else was recorded.
        #[test]
        fn the_bonus_follows_the_recorded_count(
            records in proptest::collection::vec((0usize..3, 0u8..32, 0u32..=u32::MAX / 4), 0..40),
        ) {
            let mut h = History::default();
            for &(seat, card, weight) in &records {
                h.record(seat, card, weight);
            }
            for seat in 0..3 {
                for card in 0..32u8 {
                    let count = records
                        .iter()
                        .filter(|r| r.0 == seat && r.1 == card)
                        .fold(0u32, |c, r| c.saturating_add(r.2));
                    prop_assert_eq!(h.bonus(seat, card), bonus_of(count));
                }
            }
        }
    }

    proptest! {
        /// Demoting a card divides its count by four, and leaves the others alone.
        #[test]
        fn demoting_quarters_the_count(
            weights in proptest::collection::vec(0u32..=u32::MAX / 4, 1..8),
            seat in 0usize..3,
            card in 0u8..32,
        ) {
            let mut h = History::default();
            for &w in &weights {
                h.record(seat, card, w);
                h.record(seat, card ^ 1, w);
            }
            let count = weights.iter().fold(0u32, |c, &w| c.saturating_add(w));
            h.demote(seat, card);
            prop_assert_eq!(h.bonus(seat, card), bonus_of(count / 4));
            prop_assert_eq!(h.bonus(seat, card ^ 1), bonus_of(count));
        }
    }

    #[test]
    fn bonus_fraction() {
        assert_eq!(bonus_of(0), 0);
        assert_eq!(bonus_of(1), 16);
        assert_eq!(bonus_of(0b11), 2 * 16 + 8);
        assert_eq!(bonus_of(0b1_1000_0000), 9 * 16 + 8);
    }
}
