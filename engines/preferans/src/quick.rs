//! Quick-trick bounds at a trick boundary (trump and no-trump games only).
//!
//! Two sure sources of tricks:
//! - the leader cashing the top cards of its suits (stopping at the first suit where
//!   another player could ruff before the run is over);
//! - a run of top trumps held by one player: a trump higher than every other live
//!   trump wins whenever it is played.

use super::rules::{suit_len, suit_mask};

/// Length of the run of top live cards of suit `s` held in `mine`.
#[inline]
fn top_run(mine: u32, live: u32, s: u32) -> u32 {
    let sm = suit_mask(s);
    let mine = mine & sm;
    let others = live & sm & !mine;
    if others == 0 {
        suit_len(mine, s)
    } else {
        // Cards of mine with a lower id (higher rank) than the best other card.
        suit_len(mine & ((others & others.wrapping_neg()) - 1), s)
    }
}

/// Tricks the leader can cash from the top without losing the lead.
#[inline]
fn cashable(hands: [u32; 3], leader: usize, trumps: u32) -> u32 {
    let me = hands[leader];
    let others = [hands[(leader + 1) % 3], hands[(leader + 2) % 3]];
    let live = me | others[0] | others[1];
    let mut full = 0;
    let mut partial = 0;
    for s in 0..4 {
        let k = top_run(me, live, s);
        if k == 0 {
            continue;
        }
        let sm = suit_mask(s);
        let mut limit = k;
        if trumps != 0 && sm & trumps == 0 {
            for o in others {
                if o & trumps != 0 {
                    limit = limit.min(suit_len(o, s));
                }
            }
        }
        if limit == k {
            full += k;
        } else {
            partial = partial.max(limit);
        }
    }
    full + partial
}

/// Lower and upper bound on the declarer's tricks in the `n` remaining tricks.
#[inline]
pub(crate) fn bounds(
    hands: [u32; 3],
    n: u32,
    leader: usize,
    declarer: usize,
    trumps: u32,
) -> (u32, u32) {
    let live = hands[0] | hands[1] | hands[2];
    let mut decl = 0;
    let mut defs = 0;
    if trumps != 0 {
        let s = trumps.trailing_zeros() / 8;
        for (p, &h) in hands.iter().enumerate() {
            let run = top_run(h, live, s);
            if p == declarer {
                decl = run;
            } else {
                defs = defs.max(run);
            }
        }
    }
    let cash = cashable(hands, leader, trumps);
    if leader == declarer {
        decl = decl.max(cash);
    } else {
        defs = defs.max(cash);
    }
    (decl, n.saturating_sub(defs))
}

/// Misère: whether the declarer can surely avoid every remaining trick. True when in
/// every suit all the declarer's cards are below all the defenders' cards (so it can
/// always play under, and discards lose), and, if the declarer is on lead, it has a
/// suit that a defender can still overtake.
#[inline]
pub(crate) fn misere_clean(hands: [u32; 3], leader: usize, declarer: usize) -> bool {
    let decl = hands[declarer];
    let defs = hands[(declarer + 1) % 3] | hands[(declarer + 2) % 3];
    let mut can_lead = false;
    for s in 0..4 {
        let sm = suit_mask(s);
        let (d, o) = (decl & sm, defs & sm);
        if d == 0 || o == 0 {
            continue;
        }
        // Declarer's highest card (lowest id) must be below the defenders' lowest.
        if d.trailing_zeros() < 31 - o.leading_zeros() {
            return false;
        }
        can_lead = true;
    }
    // A declarer-only suit is harmless unless the declarer must lead into it.
    leader != declarer || can_lead
}
