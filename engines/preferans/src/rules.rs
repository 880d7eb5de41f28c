//! Trick rules on raw bitsets, shared by the validated position and the search.

/// Bit mask of suit `s` (0..3).
pub(crate) const fn suit_mask(s: u32) -> u32 {
    0xff << (8 * s)
}

pub(crate) const fn suit_of(card: u8) -> u32 {
    (card >> 3) as u32
}

/// Cards of `hand` that may be played to a trick led with `led` (None: a lead).
/// `trumps` is the trump suit mask (0 in no trumps and misère).
#[inline]
pub(crate) const fn legal(hand: u32, led: Option<u8>, trumps: u32) -> u32 {
    match led {
        None => hand,
        Some(led) => {
            let follow = hand & suit_mask(suit_of(led));
            if follow != 0 {
                return follow;
            }
            let ruff = hand & trumps;
            if ruff != 0 {
                ruff
            } else {
                hand
            }
        }
    }
}

/// Whether card `a` beats card `b` (b played earlier in the trick).
#[inline]
pub(crate) const fn beats(a: u8, b: u8, trumps: u32) -> bool {
    if suit_of(a) == suit_of(b) {
        a < b
    } else {
        trumps & (1 << a) != 0
    }
}

/// Index (0..3) of the winning card of a complete trick, in play order.
#[inline]
pub(crate) const fn trick_winner(cards: [u8; 3], trumps: u32) -> usize {
    let mut best = 0;
    if beats(cards[1], cards[0], trumps) {
        best = 1;
    }
    if beats(cards[2], cards[best], trumps) {
        best = 2;
    }
    best
}

/// The cards of `cands` (a subset of `hand`) that are not equivalent to a higher card:
/// a card is skipped when the next higher live card of its suit is also in `hand`
/// (no live card separates them, so playing either gives the same result).
#[inline]
pub(crate) fn representatives(cands: u32, hand: u32, live: u32) -> u32 {
    let mut out = 0;
    let mut m = cands;
    while m != 0 {
        let b = m.trailing_zeros();
        m &= m - 1;
        let above = live & suit_mask(b >> 3) & ((1u32 << b) - 1);
        if above == 0 || hand & (1u32 << (31 - above.leading_zeros())) == 0 {
            out |= 1 << b;
        }
    }
    out
}
