//! History heuristic: cards that caused cut-offs, per seat, kept across solves of one
//! strain with the same cards out of play (neighbouring layouts of an all-foe run share
//! most good plays; another analysis starts afresh).

#[derive(Clone, Default)]
pub(crate) struct History {
    counts: [[u32; 32]; 3],
}

impl History {
    #[inline]
    pub fn record(&mut self, seat: usize, card: u8, tricks_left: u32) {
        let c = &mut self.counts[seat % 3][usize::from(card & 31)];
        *c = c.saturating_add(tricks_left * tricks_left);
    }

    /// A small ordering bonus: log2 of the count.
    #[inline]
    pub fn bonus(&self, seat: usize, card: u8) -> i32 {
        let c = self.counts[seat % 3][usize::from(card & 31)];
        (u32::BITS - c.leading_zeros()) as i32
    }

    pub fn clear(&mut self) {
        *self = History::default();
    }
}
