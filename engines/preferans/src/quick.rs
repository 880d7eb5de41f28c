//! Quick-trick bounds at a trick boundary (trump and no-trump games only).
//!
//! Two sure sources of tricks:
//! - the leader cashing the top cards of its suits (stopping at the first suit where
//!   another player could ruff before the run is over);
//! - a run of top trumps held by one player: a trump higher than every other live
//!   trump wins whenever it is played.

use super::rules::{suit_len, suit_mask, suit_pair_table};

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
fn cashable(hands: &[u32; 3], leader: usize, trumps: u32) -> u32 {
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
    hands: &[u32; 3],
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

/// Misère: whether the declarer can surely avoid every remaining trick, by ducking.
///
/// Per suit, with the declarer's cards and the defenders' cards each in rising rank:
/// the declarer's i-th lowest card must be below the defenders' i-th lowest, for every
/// i both sides reach. Put otherwise: below each defender card `e`, the declarer holds
/// at least as many cards as the defenders hold up to `e`, or all of its cards.
/// The declarer keeps that when a defender leads `x` and it plays its highest card
/// below `x` (it has one: its lowest is below their lowest), and when, void, it
/// discards its highest card of a suit; defender cards leaving only help. So it never
/// wins a trick (discards lose: no trumps in misère), and so never leads. (Ducking
/// with its lowest card would not do: with 7 9 against one defender's 8 T J, the
/// lead of the jack and then the eight would force the nine to win.)
/// On lead, the declarer also needs a suit whose every card is below every
/// defender's card of it: its lowest then loses, and that suit keeps the rule.
#[inline]
pub(crate) fn misere_clean(hands: &[u32; 3], leader: usize, declarer: usize) -> bool {
    let decl = hands[declarer];
    let defs = hands[(declarer + 1) % 3] | hands[(declarer + 2) % 3];
    let mut can_lead = false;
    for s in 0..4 {
        let shift = 8 * s;
        let (d, o) = ((decl >> shift) & 0xff, (defs >> shift) & 0xff);
        if d == 0 || o == 0 {
            continue;
        }
        let safety = MISERE_SUIT[((d as usize) << 8) | o as usize];
        if safety & DUCKS == 0 {
            return false;
        }
        can_lead |= safety & ALL_BELOW != 0;
    }
    // A declarer-only suit is harmless unless the declarer must lead into it.
    leader != declarer || can_lead
}

/// [`MISERE_SUIT`] flags: the declarer can duck every trick of the suit.
const DUCKS: u8 = 1;
/// Every declarer card of the suit is below every defender card of it.
const ALL_BELOW: u8 = 2;

/// Per suit, indexed by `declarer << 8 | defenders`.
static MISERE_SUIT: [u8; 65536] = suit_pair_table!(u8, misere_suit_flags);

/// The [`DUCKS`] and [`ALL_BELOW`] flags of the declarer's cards `d` of a suit
/// against the defenders' cards `o` of it.
const fn misere_suit_flags(d: u32, o: u32) -> u8 {
    // Walk both sides from the lowest card (bit 7) up, pairing the i-th lowest.
    let (mut bd, mut bo) = (8i32, 8i32);
    let mut ducks = true;
    loop {
        bd -= 1;
        while bd >= 0 && d & (1 << bd) == 0 {
            bd -= 1;
        }
        bo -= 1;
        while bo >= 0 && o & (1 << bo) == 0 {
            bo -= 1;
        }
        if bd < 0 || bo < 0 {
            break;
        }
        // A higher bit is a lower card: the declarer's must be the lower.
        if bd < bo {
            ducks = false;
            break;
        }
    }
    let mut flags = 0;
    if ducks {
        flags |= DUCKS;
    }
    // The declarer's highest card (lowest bit) below the defenders' lowest.
    if d != 0 && o != 0 && d.trailing_zeros() > 31 - o.leading_zeros() {
        flags |= ALL_BELOW;
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bits of the cards of one suit, `A K Q J T 9 8 7` being bits 0..7.
    fn suit(cards: &str) -> usize {
        cards
            .chars()
            .map(|c| 1 << "AKQJT987".find(c).unwrap())
            .sum()
    }

    fn flags(declarer: &str, defenders: &str) -> u8 {
        MISERE_SUIT[(suit(declarer) << 8) | suit(defenders)]
    }

    #[test]
    fn misere_suit_flags() {
        // 7 under 8 and 9 under T: every defenders' lead can be ducked.
        assert_eq!(flags("97", "T8"), DUCKS);
        assert_eq!(flags("87", "AK"), DUCKS | ALL_BELOW);
        // The defenders lead the 7: the declarer's 8 wins.
        assert_eq!(flags("8", "7"), 0);
        // The defenders lead the 8: both the declarer's cards are above it.
        assert_eq!(flags("J9", "T8"), 0);
        // More declarer cards than defenders': the last ones are never led into.
        assert_eq!(flags("A97", "8"), DUCKS);
    }

    #[test]
    fn interleaved_suits_are_clean_but_not_for_a_lead() {
        let spades = |cards: &str| suit(cards) as u32;
        let hearts = |cards: &str| (suit(cards) as u32) << 8;
        // Declarer (seat 0) 97 of spades; defenders T8 of spades and a heart each.
        let hands = [
            spades("97"),
            spades("T") | hearts("A"),
            spades("8") | hearts("K"),
        ];
        assert!(misere_clean(&hands, 1, 0));
        // On lead the declarer has no suit it can lead safely for sure.
        assert!(!misere_clean(&hands, 0, 0));
        let hands = [
            spades("87"),
            spades("A") | hearts("A"),
            spades("K") | hearts("K"),
        ];
        assert!(misere_clean(&hands, 0, 0));
    }
}
