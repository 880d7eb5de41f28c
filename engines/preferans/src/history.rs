//! History heuristic: cards that caused cut-offs, per seat, kept across solves of one
//! strain with the same cards out of play (neighbouring layouts of an all-foe run share
//! most good plays; another analysis starts afresh).

#[derive(Clone, Default)]
pub(crate) struct History {
    counts: [[u32; 32]; 3],
}

impl History {
    /// Adds `weight` to the count of `card` played by `seat`.
    #[inline]
    pub fn record(&mut self, seat: usize, card: u8, weight: u32) {
        let c = &mut self.counts[seat][usize::from(card & 31)];
        *c = c.saturating_add(weight);
    }

    /// The ordering bonus: the count's bit length (about its log2) in sixteenths, 0..=527.
    /// The fraction tells apart counts of one bit length; the log keeps old large
    /// counts from outweighing recent ones (raw counts measured far worse).
    #[inline]
    pub fn bonus(&self, seat: usize, card: u8) -> i32 {
        let c = self.counts[seat][usize::from(card & 31)];
        let bits = u32::BITS - c.leading_zeros();
        // The four bits after the leading one (fewer for short counts).
        let fraction = if bits > 5 {
            (c >> (bits - 5)) & 15
        } else {
            (c << (5 - bits)) & 15
        };
        (bits * 16 + fraction) as i32
    }

    pub fn clear(&mut self) {
        *self = History::default();
    }
}

#[cfg(test)]
mod tests {
    use super::History;
    use proptest::prelude::*;

    fn bonus_of(count: u32) -> i32 {
        let mut h = History::default();
        h.counts[0][0] = count;
        h.bonus(0, 0)
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

    #[test]
    fn bonus_fraction() {
        assert_eq!(bonus_of(0), 0);
        assert_eq!(bonus_of(1), 16);
        assert_eq!(bonus_of(0b11), 2 * 16 + 8);
        assert_eq!(bonus_of(0b1_1000_0000), 9 * 16 + 8);
    }
}
