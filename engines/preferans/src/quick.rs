//! Quick-trick bounds at a trick boundary (trump and no-trump games only).
//!
//! Two sure sources of tricks, which add up (the first wins with side cards, the
//! second with trumps):
//! - the leader cashing the top cards of its side suits (stopping at the first suit
//!   where another player could ruff before the run is over), while everyone follows
//!   suit and the trumps stay where they are;
//! - a side's trumps that no higher trump of the other side can meet (see
//!   [`SURE_TRUMPS`]).
//!
//! And one for a declarer who holds all the trumps left, or on lead can draw the
//! defenders': its trumps and its side-suit winners (see [`trumps_unruffed`]); and,
//! against a declarer without trumps, the defenders' run of a suit it is void in (see
//! [`void_suit_run`]).
//!
//! Two more settle only whether the declarer takes a trick more: the defenders must at
//! last lead a suit where it holds the top card, or a card behind the defender holding
//! the higher ones (see [`declarer_wins_a_forced_lead`]); or a defender who keeps the
//! lead must at last lead a card below the declarer's highest of its suit (see
//! [`declarer_wins_a_stranded_lead`]).

use super::rules::{fill_up_suits, seat_after, suit_len, suit_mask, suit_pair_table};

/// Length of the run of top live cards of suit `s` held in `mine`.
#[inline(always)]
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
#[inline(always)]
fn cashable(hands: &[u32; 3], leader: usize, trumps: u32) -> u32 {
    let me = hands[leader];
    let others = [hands[seat_after(leader, 1)], hands[seat_after(leader, 2)]];
    let live = me | others[0] | others[1];
    let mut full = 0;
    let mut partial = 0;
    for s in 0..4 {
        // Trumps are counted by [`SURE_TRUMPS`].
        let k = if suit_mask(s) & trumps == 0 {
            top_run(me, live, s)
        } else {
            0
        };
        let mut limit = k;
        if trumps != 0 {
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
///
/// Each side's sure trumps, plus the leader's cashed side-suit tricks for the leader's
/// side (a defender's only in no-trump games; in trump games, against a declarer
/// without trumps, a defender's [`void_suit_run`]): distinct tricks, won by trumps and
/// by side cards. A defender's trumps are matched against the declarer's only: a
/// higher trump of the other defender still takes the trick for the defenders.
#[inline(always)]
pub(crate) fn bounds(
    hands: &[u32; 3],
    n: u32,
    leader: usize,
    declarer: usize,
    trumps: u32,
) -> (u32, u32) {
    let mut decl = 0;
    let mut defs = 0;
    if trumps != 0 {
        let shift = trumps.trailing_zeros();
        let of = |p: usize| ((hands[p] >> shift) & 0xff) as usize;
        let (d, e, w) = (
            of(declarer),
            of(seat_after(declarer, 1)),
            of(seat_after(declarer, 2)),
        );
        decl = u32::from(SURE_TRUMPS[(d << 8) | e | w]);
        defs = u32::from(SURE_TRUMPS[(e << 8) | d].max(SURE_TRUMPS[(w << 8) | d]));
    }
    if leader == declarer {
        decl += cashable(hands, leader, trumps);
    } else if trumps == 0 {
        // A defender's cashed tricks: in trump games they almost never decided, and
        // left out they save 4% of the instructions (Ru1, callgrind) for 0.1-2.8%
        // more nodes; no-trump games keep them (2.4% more nodes without). With class
        // entries a cash relies on the ranks of its cards, as a class mate may deal
        // them to the other defender: counted so, preferansRu1 took 231.8 nodes per
        // layout with them and without.
        defs += cashable(hands, leader, trumps);
    } else if hands[declarer] & trumps == 0 {
        // 130.9 -> 98.8 nodes per layout on a random view where the declarer runs out
        // of trumps early (`*K*T.AKJ9.A.AKT87`, 6D, 50,000 layouts), preferansRu1
        // 231.8 -> 218.1, solvealldeals2 32.3 -> 30.2.
        defs += void_suit_run(hands, leader, declarer, trumps);
    }
    decl = decl.max(trumps_unruffed(hands, declarer, trumps, leader == declarer));
    (decl, n.saturating_sub(defs))
}

/// A defender on lead in a trump or no-trump game: whether the defenders must lead some
/// suit `s` often enough for the declarer to win one of those tricks.
///
/// While the declarer takes no trick, the defenders lead every trick. The tricks led in
/// a suit `t` are at most the longer defender holding of `t`: each takes a card of `t`
/// from its leader, and from the other defender while it holds one; and once one leads
/// `t` with the other void in it, the other can never lead `t`. These maxima add up to
/// the tricks left plus what one defender holds beyond the other, suit by suit (both
/// hold as many cards). So at least the longer holding of `s` less that surplus of
/// tricks are led in `s`, and at most the shorter holding: both defenders follow suit
/// in them, and nobody ruffs (a defender parts with a card of `s` otherwise only by
/// discarding, without trumps, or by ruffing when `s` is trumps, which nothing ruffs).
///
/// The declarer's card: its highest of `s`, when the defender playing after it (in a
/// trick the other defender leads) holds nothing above it, and the one playing before
/// it in every defender's trick holds `k` cards above it. In each trick of `s` the
/// declarer sees whether one of those `k` fell: if so it plays a lower card, if not its
/// highest, which wins. So it wins one of the first `k + 1` tricks led in `s`, when that
/// many are forced and it holds `k + 1` cards of `s`. It discards one of them only
/// when its hand is all of `s` and another suit is led: the tricks of `s` left are then
/// fewer than its cards, and still more than the defender's cards above its highest.
/// With `k` zero, the declarer holds the suit's top card, and one forced lead is enough.
#[inline(always)]
pub(crate) fn declarer_wins_a_forced_lead(hands: &[u32; 3], declarer: usize) -> bool {
    let decl = hands[declarer];
    // `before` plays before the declarer in every trick a defender leads.
    let (after, before) = (
        hands[seat_after(declarer, 1)],
        hands[seat_after(declarer, 2)],
    );
    let beaten = at_or_below(decl);
    // The suits of the declarer where `after` holds nothing above its highest card.
    let candidates = nonzero_bytes(decl) & !nonzero_bytes(after & !beaten);
    if candidates == 0 {
        return false;
    }
    let (la, lb) = (suit_lengths(after), suit_lengths(before));
    let beyond = excess(la, lb);
    let surplus = byte_sum(beyond);
    if surplus >= 8 {
        return false;
    }
    let longer = lb + beyond;
    // Per suit, the tricks of it the declarer needs: `k + 1`.
    let needed = suit_lengths(before & !beaten) + 0x0101_0101;
    // Bit 4 of a byte: at least `needed` forced leads of its suit, and as many cards of
    // it for the declarer. Lengths are at most 8, needs at most 9 and the surplus at
    // most 7, so each byte stays in 0..=24 and none borrows from the next.
    let forced = ((longer | 0x1010_1010) - surplus * 0x0101_0101 - needed) & 0x1010_1010;
    let held = ((suit_lengths(decl) | 0x1010_1010) - needed) & 0x1010_1010;
    forced & held & (candidates >> 3) != 0
}

/// A defender on lead in a trump or no-trump game whose partner can never win a trick
/// it leads: whether the declarer then surely wins one.
///
/// The partner holds no trump, and in each suit of the leader only cards below the
/// leader's lowest of it: on the leader's lead it can neither beat the card led nor
/// ruff. So while the declarer takes no trick, the leader wins every trick and leads
/// the next, and in the end leads every card it holds. The declarer's highest card
/// `d` of a suit wins when the leader leads a card of that suit below `d` (the
/// partner's cards of it are lower still). The declarer plays low on the leader's `k`
/// cards above `d` and keeps `d` for that lead, so it needs `k + 1` cards of the suit.
/// It parts with one of them otherwise only by discarding when its hand is all of
/// that suit and another suit is led: the leader then holds no more cards of the suit
/// than the declarer keeps, among them the lower one and what is left of the `k`.
///
/// The partner may also hold higher cards in one suit of the leader, if that is the
/// suit the declarer wins in and the partner holds nothing above `d` there: a lead of
/// it above `d` is above all the partner's cards of it, and on one below `d` the
/// declarer plays `d` and wins, whatever the partner plays. (Two such suits would ask
/// the declarer to keep both, which a discard may prevent.)
///
/// In trump games, where class entries (see tt.rs) may rest on the answer, no suit
/// may have tail cards (`tail`, the position's [`tail_cards`](super::tt::tail_cards))
/// in both defenders' hands, so that every class mate gets the same answer: a class
/// mate deals each defender as many of a suit's tail cards, and those are below all
/// other cards of the suit; the leader's cards above `d` are never tail cards.
#[inline(always)]
pub(crate) fn declarer_wins_a_stranded_lead(
    hands: &[u32; 3],
    leader: usize,
    declarer: usize,
    trumps: u32,
    tail: u32,
) -> bool {
    let lead = hands[leader];
    let partner = hands[3 - leader - declarer];
    let decl = hands[declarer];
    if partner & trumps != 0 {
        return false;
    }
    // The suits where the partner holds a card above the leader's lowest.
    let overtaken = nonzero_bytes(partner & fill_up_suits(lead, u32::MAX));
    if overtaken & overtaken.wrapping_sub(1) != 0 {
        return false;
    }
    if trumps != 0 && nonzero_bytes(lead & tail) & nonzero_bytes(partner & tail) != 0 {
        return false;
    }
    let beaten = at_or_below(decl);
    let led_below = nonzero_bytes(lead & beaten);
    // Per suit, `k + 1`; at most 8, so no byte below borrows from the next.
    let needed = suit_lengths(lead & !beaten) + 0x0101_0101;
    let held = ((suit_lengths(decl) | 0x1010_1010) - needed) & 0x1010_1010;
    let wins = held & (led_below >> 3);
    if overtaken == 0 {
        return wins != 0;
    }
    // The partner's one suit above the leader's lowest: it must hold nothing above `d`.
    let above_declarer = nonzero_bytes(partner & !beaten);
    wins & (overtaken >> 3) & !(above_declarer >> 3) != 0
}

/// Per suit, the cards at or below one of `cards` (toward the suit's lowest card, the
/// top bit of its byte): a prefix fill in spans of 1, 2 and 4.
#[inline(always)]
fn at_or_below(cards: u32) -> u32 {
    let mut below = cards;
    below |= (below << 1) & 0xfefe_fefe;
    below |= (below << 2) & 0xfcfc_fcfc;
    below | (below << 4) & 0xf0f0_f0f0
}

/// Bit 7 of each byte of `x` that is not zero.
#[inline(always)]
fn nonzero_bytes(x: u32) -> u32 {
    (((x & 0x7f7f_7f7f) + 0x7f7f_7f7f) | x) & 0x8080_8080
}

/// A defender on lead in a trump game against a declarer without trumps: the tricks
/// of one side suit the declarer is void in. Every card of it a defender leads wins
/// for the defenders (the declarer can neither follow nor ruff), whichever defender
/// it leaves on lead, so they can go on leading it while the one on lead holds a card
/// of it: at least as many tricks as both defenders hold cards of it, or all the
/// leader's when its partner holds none and no trump (its discards spend no trump the
/// sure trumps count). No trump is played in these tricks.
///
/// It counts cards and relies on no card's rank, so a class entry (see tt.rs) may
/// rest on it: unlike the cashed top cards of a suit, which a class mate may deal to
/// the other defender.
#[inline(always)]
fn void_suit_run(hands: &[u32; 3], leader: usize, declarer: usize, trumps: u32) -> u32 {
    let partner = hands[3 - leader - declarer];
    let mut most = 0;
    for s in 0..4 {
        if suit_mask(s) & (trumps | hands[declarer]) != 0 {
            continue;
        }
        let (mine, theirs) = (suit_len(hands[leader], s), suit_len(partner, s));
        let run = if theirs > 0 {
            mine.min(theirs)
        } else if partner & trumps == 0 {
            mine
        } else {
            0
        };
        most = most.max(run);
    }
    most
}

/// The declarer's tricks once nobody else can ruff (0 if that may never come): every
/// trump it holds, and every side card above the defenders' cards of its suit.
///
/// Nobody else can ruff when the defenders hold no trumps, or when the declarer is on
/// lead and its top trumps outnumber each defender's: it draws theirs, leading its top
/// trumps, keeping the lead (defenders' discards only help).
///
/// With no trumps left to the defenders, not on lead, the declarer follows suit until
/// it is void, and then must ruff, winning; it cashes those side cards whenever it is
/// on lead. It can lose one only by discarding it, void in the suit led and out of
/// trumps, and it spends a trump only by ruffing or leading: so it has had the lead,
/// and cashed them, by then.
#[inline(always)]
fn trumps_unruffed(hands: &[u32; 3], declarer: usize, trumps: u32, declarer_leads: bool) -> u32 {
    if trumps == 0 {
        return 0;
    }
    let mine = hands[declarer];
    let (e, w) = (
        hands[seat_after(declarer, 1)],
        hands[seat_after(declarer, 2)],
    );
    let live = mine | e | w;
    let t = trumps.trailing_zeros() / 8;
    let top = top_run(mine, live, t);
    let theirs = suit_len(e, t).max(suit_len(w, t));
    if top == 0 || (theirs > 0 && !(declarer_leads && top >= theirs)) {
        return 0;
    }
    (0..4)
        .map(|s| {
            if s == t {
                suit_len(mine, s)
            } else {
                top_run(mine, live, s)
            }
        })
        .sum()
}

/// Per trump suit, indexed by `mine << 8 | theirs`: how many of `mine` surely win a
/// trick. Each of them is played in a trick of its own and wins it unless a higher
/// trump of `theirs` falls in the same trick; one card of theirs beats at most one of
/// mine, so at most a greatest matching of my trumps to higher ones of theirs lose.
static SURE_TRUMPS: [u8; 65536] = suit_pair_table!(u8, sure_trumps);

const fn sure_trumps(mine: u32, theirs: u32) -> u8 {
    // From the highest card (bit 0) down: their unmatched higher trumps so far.
    let (mut higher, mut sure, mut b) = (0, 0, 0);
    while b < 8 {
        if theirs & (1 << b) != 0 {
            higher += 1;
        } else if mine & (1 << b) != 0 {
            if higher > 0 {
                higher -= 1;
            } else {
                sure += 1;
            }
        }
        b += 1;
    }
    sure
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
///
/// The suits that fail the pairing are returned to be checked by [`covered`].
#[inline(always)]
pub(crate) fn misere_pairing(hands: &[u32; 3], leader: usize, declarer: usize) -> Pairing {
    let decl = hands[declarer];
    let defs = hands[seat_after(declarer, 1)] | hands[seat_after(declarer, 2)];
    let mut can_lead = false;
    let mut unpaired = 0u32;
    for s in 0..4 {
        let shift = 8 * s;
        let (d, o) = ((decl >> shift) & 0xff, (defs >> shift) & 0xff);
        // A suit one side lacks reads DUCKS alone: it pairs and is no safe lead. No
        // branch skips it: which suits those are is data, and mispredicted often.
        let safety = MISERE_SUIT[((d as usize) << 8) | o as usize];
        unpaired |= u32::from(safety & DUCKS == 0) << s;
        can_lead |= safety & ALL_BELOW != 0;
    }
    if unpaired != 0 {
        Pairing::Unpaired(unpaired)
    } else if leader != declarer || can_lead {
        // A declarer-only suit is harmless unless the declarer must lead into it.
        Pairing::Clean
    } else {
        Pairing::Open
    }
}

/// What [`misere_pairing`] finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pairing {
    /// The declarer surely takes no more tricks.
    Clean,
    /// These suits (bits 0..3) fail the pairing, the others pair: clean if
    /// [`covered`] says so.
    Unpaired(u32),
    /// Every suit pairs, but the declarer is on lead without a safe lead.
    Open,
}

/// Whether [`misere_pairing`] and [`covered`] call the position clean.
#[cfg(test)]
fn misere_clean(hands: &[u32; 3], leader: usize, declarer: usize) -> bool {
    match misere_pairing(hands, leader, declarer) {
        Pairing::Clean => true,
        Pairing::Unpaired(suits) => covered(hands, declarer, suits, leader == declarer),
        Pairing::Open => false,
    }
}

/// Misère: whether every suit of `unpaired` (bits 0..3), where the declarer's and the
/// defenders' cards do not pair, is covered, the other suits pairing.
///
/// Suit `s` is covered by defender `y` when all of `y`'s cards of `s` are above all
/// the declarer's, and `y` keeps one as long as the declarer does. Then the declarer
/// loses every trick of `s`: led by `y`, or by the other defender `x` when `y` follows
/// after (the declarer ducks below the lead if it can, else plays any card, and `y`
/// must beat it). Every trick of `s` takes one card of `s` from `y` and from the
/// declarer, so `y` keeps one as long as its surplus of cards of `s` over the
/// declarer's, `slack`, stays at least 0. Only `y`'s discards of `s` lower it, and
/// the declarer's raise it. `y` discards only when `x` leads a suit `t` where `y` is
/// void (the declarer never wins a trick, so never leads but perhaps now), which
/// bounds the discards that lower `slack`, two ways:
/// - `y` void in `t` must have lost its cards of `t` to tricks of `t`, each taking one
///   of `x`'s, or to its own discards, which are then not of `s`: at most the sum over
///   `t` of what `x` holds of `t` beyond what `y` does;
/// - when the declarer is void in `t` too, it discards a card of `s` back, when it
///   knows which suit `y` discarded: when it plays after `y`, or when `s` is the only
///   suit to cover; then only tricks where the declarer follows `t` count, at most
///   the lesser of `x`'s and the declarer's cards of `t`, summed over `t`.
///
/// On lead, the declarer leads a covered suit, which `y` wins; that trick may give a
/// defender one discard more.
#[inline(always)]
pub(crate) fn covered(
    hands: &[u32; 3],
    declarer: usize,
    unpaired: u32,
    declarer_leads: bool,
) -> bool {
    let decl = hands[declarer];
    let several = unpaired & (unpaired - 1) != 0;
    let mut m = unpaired;
    while m != 0 {
        let s = m.trailing_zeros();
        m &= m - 1;
        let d = (decl >> (8 * s)) & 0xff;
        // The highest card is bit 0: every card of `y` above every card of `d`.
        let covers = |seat: usize| {
            let y = (hands[seat] >> (8 * s)) & 0xff;
            y != 0 && 31 - y.leading_zeros() < d.trailing_zeros()
        };
        let (x, y) = match (seat_after(declarer, 1), seat_after(declarer, 2)) {
            (e, w) if covers(w) => (e, w),
            (e, w) if covers(e) => (w, e),
            _ => return false,
        };
        // The suits' lengths of each hand, a byte a suit: the sums over the other
        // suits `t` take a few operations on all four at once, where a table read a
        // suit and hand took 7-8% more instructions on preferansRu5 and Ru6.
        let (xl, yl, dl) = (
            suit_lengths(hands[x]),
            suit_lengths(hands[y]),
            suit_lengths(decl),
        );
        let shift = 8 * s;
        let slack = (yl >> shift & 0xff) as i32 - (dl >> shift & 0xff) as i32;
        let compensated = !several || y == seat_after(x, 1);
        // Per other suit: what `x` holds beyond `y`, and the lesser of `x`'s and the
        // declarer's cards.
        let others = !(0xff << shift);
        let by_voids = byte_sum(excess(xl, yl) & others);
        let by_declarer_follows = byte_sum((xl - excess(xl, dl)) & others);
        let mut discards = if compensated {
            by_voids.min(by_declarer_follows)
        } else {
            by_voids
        };
        discards += u32::from(declarer_leads);
        if discards as i32 > slack {
            return false;
        }
    }
    true
}

/// Per suit, how many of `cards` it holds: a byte a suit, four suits at once.
#[inline(always)]
fn suit_lengths(cards: u32) -> u32 {
    let pairs = cards - ((cards >> 1) & 0x5555_5555);
    let nibbles = (pairs & 0x3333_3333) + ((pairs >> 2) & 0x3333_3333);
    (nibbles + (nibbles >> 4)) & 0x0f0f_0f0f
}

/// Per byte of two [`suit_lengths`], `a - b` where `a` is the greater, else 0.
#[inline(always)]
fn excess(a: u32, b: u32) -> u32 {
    // Each byte of `a + 16 - b` lies in 8..=24 (lengths are at most 8), so no byte
    // borrows from the next, and its bit 4 says `a >= b`; then its low bits are
    // `a - b`.
    let biased = (a | 0x1010_1010) - b;
    let at_least = (biased >> 4) & 0x0101_0101;
    biased & 0x0f0f_0f0f & (at_least * 0x0f)
}

/// The sum of the four bytes of `bytes`, each at most 8.
#[inline(always)]
fn byte_sum(bytes: u32) -> u32 {
    bytes.wrapping_mul(0x0101_0101) >> 24
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
pub(super) mod tests {
    use proptest::prelude::*;

    use super::super::position::trump_mask;
    use super::super::rules::{legal, trick_winner};
    use super::super::search::tests::{class_mate, position, test_strain};
    use super::super::tt::tail_cards;
    use super::*;

    /// Declarer tricks under best play by plain minimax over every legal card.
    pub(in super::super) fn minimax(
        hands: &mut [u32; 3],
        leader: usize,
        declarer: usize,
        trumps: u32,
    ) -> u32 {
        if hands[leader] == 0 {
            return 0;
        }
        let mut trick = [0u8; 3];
        play(hands, &mut trick, 0, leader, declarer, trumps)
    }

    fn play(
        hands: &mut [u32; 3],
        trick: &mut [u8; 3],
        ply: usize,
        leader: usize,
        declarer: usize,
        trumps: u32,
    ) -> u32 {
        if ply == 3 {
            let winner = (leader + trick_winner(*trick, trumps)) % 3;
            return u32::from(winner == declarer) + minimax(hands, winner, declarer, trumps);
        }
        let p = (leader + ply) % 3;
        let led = (ply > 0).then_some(trick[0]);
        let mut m = legal(hands[p], led, trumps);
        let mut best: Option<u32> = None;
        while m != 0 {
            let c = m.trailing_zeros() as u8;
            m &= m - 1;
            hands[p] &= !(1 << c);
            trick[ply] = c;
            let v = play(hands, trick, ply + 1, leader, declarer, trumps);
            hands[p] |= 1 << c;
            best = Some(match best {
                None => v,
                Some(b) if p == declarer => b.max(v),
                Some(b) => b.min(v),
            });
        }
        best.unwrap_or(0)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// The quick bounds hold the exact value of the position between them.
        #[test]
        fn bounds_hold_the_minimax_value(
            deck in Just((0u8..32).collect::<Vec<u8>>()).prop_shuffle(),
            n in 1usize..=5,
            leader in 0usize..3,
            declarer in 0usize..3,
            strain in 0u32..5,
        ) {
            let trumps = trump_mask(test_strain(strain));
            let (mut hands, _) = position(&deck, n, 0, leader, trumps);
            let (lo, hi) = bounds(&hands, n as u32, leader, declarer, trumps);
            let exact = minimax(&mut hands, leader, declarer, trumps);
            prop_assert!(lo <= exact && exact <= hi, "{} <= {} <= {}", lo, exact, hi);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 6000, ..ProptestConfig::default() })]

        /// Leads forced into the declarer's top card, or into its highest card behind
        /// the defender holding the higher ones, win it a trick, against plain minimax,
        /// on deals of two or three suits, where the defenders' holdings line up often
        /// enough for the test to apply.
        #[test]
        fn forced_leads_hold_the_minimax_value(
            deck in Just((0u8..32).collect::<Vec<u8>>()).prop_shuffle(),
            first_suit in 0u32..4,
            suits in 2u32..4,
            n in 1usize..=5,
            leader in 0usize..3,
            declarer in 0usize..3,
            strain in 0u32..5,
            seed: u64,
        ) {
            let trumps = trump_mask(test_strain(strain));
            let dealt = (0..suits).fold(0, |m, k| m | suit_mask((first_suit + k) % 4));
            let cards: Vec<u8> = deck.into_iter().filter(|&c| dealt & (1 << c) != 0).collect();
            let (hands, _) = position(&cards, n, 0, leader, trumps);
            let exact = minimax(&mut hands.clone(), leader, declarer, trumps);
            if leader != declarer && declarer_wins_a_forced_lead(&hands, declarer) {
                prop_assert!(exact >= 1, "forced lead, but the declarer takes {}", exact);
            }
            // It reads the suits' lengths and the declarer's cards against the
            // defenders' together: a class mate (see tt.rs) gets the same answer, so a
            // bound resting on it relies on no tail card.
            let mate = class_mate(hands, declarer, seed);
            prop_assert_eq!(declarer_wins_a_forced_lead(&mate, declarer), declarer_wins_a_forced_lead(&hands, declarer));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Against a declarer without trumps and void in a side suit, with a defender
        /// on lead (where [`void_suit_run`] counts), the bounds still hold the exact
        /// value; and they are the same for a class mate (the defenders' tail cards
        /// dealt anew), as the count relies on no rank.
        #[test]
        fn void_suit_runs_hold_the_minimax_value(
            deck in Just((0u8..32).collect::<Vec<u8>>()).prop_shuffle(),
            n in 1usize..=5,
            trump in 0u32..4,
            void_offset in 1u32..4,
            declarer in 0usize..3,
            leader_offset in 1usize..3,
            seed: u64,
        ) {
            let trumps = suit_mask(trump);
            let void = suit_mask((trump + void_offset) % 4);
            let (declarer_cards, rest): (Vec<u8>, Vec<u8>) =
                deck.iter().partition(|&&c| (trumps | void) & (1 << c) == 0);
            let leader = (declarer + leader_offset) % 3;
            let mut hands = [0u32; 3];
            for &c in &declarer_cards[..n] {
                hands[declarer] |= 1 << c;
            }
            let defenders = [(declarer + 1) % 3, (declarer + 2) % 3];
            for (i, &c) in rest.iter().chain(&declarer_cards[n..]).take(2 * n).enumerate() {
                hands[defenders[i % 2]] |= 1 << c;
            }
            let (lo, hi) = bounds(&hands, n as u32, leader, declarer, trumps);
            let exact = minimax(&mut hands.clone(), leader, declarer, trumps);
            prop_assert!(lo <= exact && exact <= hi, "{} <= {} <= {}", lo, exact, hi);
            let mate = class_mate(hands, declarer, seed);
            prop_assert_eq!(bounds(&mate, n as u32, leader, declarer, trumps), (lo, hi));
        }
    }

    /// A stranded leader wins the declarer a trick, against plain minimax, on deals where
    /// the leader's partner holds only the lower half of each suit, so that the rule
    /// often applies (its form with one suit where the partner holds higher cards too);
    /// and every class mate gets the same answer in trump games.
    #[test]
    fn stranded_leads_hold_the_minimax_value() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let (mut applied, mut dealt) = (0, 0);
        while dealt < 40_000 {
            let trumps = trump_mask(test_strain(next(5) as u32));
            let n = 1 + next(5) as usize;
            let (leader, declarer) = (next(3) as usize, next(3) as usize);
            if leader == declarer {
                continue;
            }
            let mut deck: Vec<u8> = (0..32).collect();
            for i in (1..deck.len()).rev() {
                deck.swap(i, next(i as u64 + 1) as usize);
            }
            let partner = 3 - leader - declarer;
            let mut hands = [0u32; 3];
            for &c in deck.iter().filter(|&&c| c % 8 >= 4).take(n) {
                hands[partner] |= 1 << c;
            }
            let partner_cards = hands[partner];
            let mut rest = deck.iter().filter(|&&c| partner_cards & (1 << c) == 0);
            for seat in [leader, declarer] {
                for &c in rest.by_ref().take(n) {
                    hands[seat] |= 1 << c;
                }
            }
            dealt += 1;
            let live = hands[0] | hands[1] | hands[2];
            let tail = tail_cards(hands[declarer], live);
            let stranded = declarer_wins_a_stranded_lead(&hands, leader, declarer, trumps, tail);
            if stranded {
                applied += 1;
                let exact = minimax(&mut hands.clone(), leader, declarer, trumps);
                assert!(
                    exact >= 1,
                    "{hands:x?}, {leader} leads: the declarer takes 0"
                );
            }
            if trumps != 0 {
                let mate = class_mate(hands, declarer, next(u64::MAX));
                let mate_tail = tail_cards(mate[declarer], live);
                assert_eq!(
                    declarer_wins_a_stranded_lead(&mate, leader, declarer, trumps, mate_tail),
                    stranded,
                    "{hands:x?} against its class mate {mate:x?}"
                );
            }
        }
        assert!(
            applied > 1000,
            "the rule applied to {applied} of {dealt} deals"
        );
    }

    /// Leads forced into the declarer's top card and into its king behind the ace, and
    /// leads the defenders avoid.
    #[test]
    fn forced_leads() {
        // No trumps, E (1) on lead. The defenders can lead hearts twice at most (E's one,
        // or W's two with E following once); then one of them must lead a spade, and
        // the declarer's ace takes it. The quick bounds alone do not see that trick.
        let hands = [
            spades("A") | hearts("87"),
            spades("KQ") | hearts("A"),
            spades("J") | hearts("KQ"),
        ];
        assert!(declarer_wins_a_forced_lead(&hands, 0));
        assert_eq!(bounds(&hands, 3, 1, 0, 0).0, 0);
        assert_eq!(minimax(&mut hands.clone(), 1, 0, 0), 1);
        // With E's hearts against W's spades, E leads hearts to the end: the ace goes as
        // a discard and the declarer takes nothing.
        let hearts_to_the_end = [hands[0], hearts("AQJ"), spades("KJT")];
        assert!(!declarer_wins_a_forced_lead(&hearts_to_the_end, 0));
        assert_eq!(minimax(&mut hearts_to_the_end.clone(), 1, 0, 0), 0);
        // The declarer's king of spades, with W (2), who plays before it in every trick
        // the defenders lead, holding the ace: two spade leads are forced (each defender
        // holds two spades and one heart), and the king wins one of them.
        let king_behind_ace = [
            spades("K8") | hearts("7"),
            spades("QJ") | hearts("A"),
            spades("AT") | hearts("K"),
        ];
        assert!(declarer_wins_a_forced_lead(&king_behind_ace, 0));
        assert_eq!(minimax(&mut king_behind_ace.clone(), 1, 0, 0), 1);
        // With the ace in E's hand, behind the declarer, W leads spades through it
        // and the king never wins.
        let king_before_ace = [king_behind_ace[0], king_behind_ace[2], king_behind_ace[1]];
        assert!(!declarer_wins_a_forced_lead(&king_before_ace, 0));
        assert_eq!(minimax(&mut king_before_ace.clone(), 1, 0, 0), 0);
    }

    /// The run counts: a partner following the suit caps it, a partner without the
    /// suit or trumps lets the leader run all of it, and a declarer holding a trump
    /// stops it.
    #[test]
    fn void_suit_run_counts_the_suit_both_defenders_hold() {
        // Spades trumps; the declarer (seat 0) holds hearts only, E (1) leads.
        let trumps = suit_mask(0);
        let hands = [
            hearts("T987"),
            diamonds("T987"),
            diamonds("AKQ") | hearts("J"),
        ];
        assert_eq!(void_suit_run(&hands, 1, 0, trumps), 3);
        assert_eq!(bounds(&hands, 4, 1, 0, trumps).1, 1);
        let partner_void = [hands[0], hands[1], clubs("AKQ") | hearts("J")];
        assert_eq!(void_suit_run(&partner_void, 1, 0, trumps), 4);
        let partner_trump = [hands[0], hands[1], spades("A") | clubs("KQ") | hearts("J")];
        assert_eq!(void_suit_run(&partner_trump, 1, 0, trumps), 0);
        let declarer_trump = [spades("7") | hearts("T98"), hands[1], hands[2]];
        assert_eq!(bounds(&declarer_trump, 4, 1, 0, trumps).1, 4);
        // The leader's one diamond wins, but then it must lead hearts: its partner's
        // diamonds (all lower) never get the lead, and the declarer takes three.
        let stranded = [
            hearts("AKQJ"),
            diamonds("A") | hearts("987"),
            diamonds("987") | hearts("T"),
        ];
        assert_eq!(void_suit_run(&stranded, 1, 0, trumps), 1);
        assert_eq!(minimax(&mut stranded.clone(), 1, 0, trumps), 3);
        assert_eq!(bounds(&stranded, 4, 1, 0, trumps).1, 3);
    }

    /// Misère by plain search over every legal card: whether the declarer can avoid
    /// every remaining trick.
    fn declarer_escapes(hands: &mut [u32; 3], leader: usize, declarer: usize) -> bool {
        if hands[leader] == 0 {
            return true;
        }
        escapes_from(hands, &mut [0; 3], 0, leader, declarer)
    }

    fn escapes_from(
        hands: &mut [u32; 3],
        trick: &mut [u8; 3],
        ply: usize,
        leader: usize,
        declarer: usize,
    ) -> bool {
        if ply == 3 {
            let winner = (leader + trick_winner(*trick, 0)) % 3;
            return winner != declarer && declarer_escapes(hands, winner, declarer);
        }
        let p = (leader + ply) % 3;
        let led = (ply > 0).then_some(trick[0]);
        let mut m = legal(hands[p], led, 0);
        // The declarer needs one card that escapes, a defender one that catches.
        let mut escapes = p != declarer;
        while m != 0 {
            let c = m.trailing_zeros() as u8;
            m &= m - 1;
            hands[p] &= !(1 << c);
            trick[ply] = c;
            let e = escapes_from(hands, trick, ply + 1, leader, declarer);
            hands[p] |= 1 << c;
            if e == (p == declarer) {
                escapes = e;
                break;
            }
        }
        escapes
    }

    proptest! {
        /// The lengths, excesses and sums over suits, four suits at once, against the
        /// suits counted one by one.
        #[test]
        fn suit_lengths_and_their_excess_count_each_suit(
            a in any::<u32>(),
            b in any::<u32>(),
            s in 0u32..4,
        ) {
            let count = |cards: u32, t: u32| (cards >> (8 * t) & 0xff).count_ones();
            let beyond = |t: u32| count(a, t).saturating_sub(count(b, t));
            let (la, lb) = (suit_lengths(a), suit_lengths(b));
            for t in 0..4 {
                prop_assert_eq!(la >> (8 * t) & 0xff, count(a, t));
                prop_assert_eq!(excess(la, lb) >> (8 * t) & 0xff, beyond(t));
            }
            let others = !(0xff << (8 * s));
            let expected: u32 = (0..4).filter(|&t| t != s).map(beyond).sum();
            prop_assert_eq!(byte_sum(excess(la, lb) & others), expected);
            let lesser: u32 = (0..4)
                .filter(|&t| t != s)
                .map(|t| count(a, t).min(count(b, t)))
                .sum();
            prop_assert_eq!(byte_sum((la - excess(la, lb)) & others), lesser);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 20000, ..ProptestConfig::default() })]

        /// A position the misère test calls clean is one the declarer escapes. Half
        /// the deals come from 15 cards (3 suits of 5 ranks), where a suit's cards are
        /// often shared out among all three hands, as the covering rule needs.
        #[test]
        fn misere_clean_positions_escape(
            deck in Just((0u8..32).collect::<Vec<u8>>()).prop_shuffle(),
            small in Just((0u8..15).map(|i| i / 5 * 8 + i % 5 + 2).collect::<Vec<u8>>()).prop_shuffle(),
            n in 1usize..=7,
            use_small in any::<bool>(),
            leader in 0usize..3,
            declarer in 0usize..3,
        ) {
            let (deck, n) = if use_small { (small, n.min(5)) } else { (deck, n) };
            let (mut hands, _) = position(&deck, n, 0, leader, 0);
            if misere_clean(&hands, leader, declarer) {
                prop_assert!(declarer_escapes(&mut hands, leader, declarer), "{:?}", hands);
            }
        }
    }

    #[test]
    fn declarer_holding_the_only_trumps() {
        // Spades trumps. Declarer (seat 0): the seven of trumps, the heart ace, a low
        // diamond; the defenders no trumps. The trump and the ace are sure.
        let hands = [
            spades("7") | hearts("A") | diamonds("7"),
            hearts("K") | diamonds("AK"),
            hearts("Q") | diamonds("QJ"),
        ];
        assert_eq!(trumps_unruffed(&hands, 0, spades("AKQJT987"), false), 2);
        assert_eq!(bounds(&hands, 3, 1, 0, spades("AKQJT987")).0, 2);
        // A defender's trump, or none for the declarer: no such bound.
        let mut ruffing = hands;
        ruffing[2] = spades("8") | diamonds("QJ");
        assert_eq!(trumps_unruffed(&ruffing, 0, spades("AKQJT987"), false), 0);
        assert_eq!(trumps_unruffed(&hands, 0, hearts("AKQJT987"), false), 0);
    }

    #[test]
    fn the_declarer_draws_trumps_and_cashes() {
        // Spades trumps, the declarer (seat 0) on lead: its queen draws West's nine,
        // and then nobody can ruff its jack of clubs. Without drawing, West's trump
        // would threaten the jack: only the queen is sure.
        let hands = [
            spades("Q") | hearts("QJ") | clubs("J"),
            hearts("A") | diamonds("J9") | clubs("7"),
            spades("9") | hearts("98") | diamonds("T"),
        ];
        let trumps = spades("AKQJT987");
        assert_eq!(trumps_unruffed(&hands, 0, trumps, true), 2);
        assert_eq!(bounds(&hands, 4, 0, 0, trumps).0, 2);
        // West's second trump outlasts the queen.
        let mut longer = hands;
        longer[2] = spades("98") | hearts("9") | diamonds("T");
        assert_eq!(trumps_unruffed(&longer, 0, trumps, true), 0);
        assert_eq!(bounds(&longer, 4, 0, 0, trumps).0, 1);
    }

    #[test]
    fn sure_trumps_examples() {
        // K Q J T against A 7: the ace beats one of them.
        assert_eq!(sure_trumps(spades("KQJT"), spades("A7")), 3);
        // A 8 against K Q J: the ace, and the eight loses to one of theirs.
        assert_eq!(sure_trumps(spades("A8"), spades("KQJ")), 1);
        assert_eq!(sure_trumps(spades("Q97"), spades("AKJ8")), 0);
        assert_eq!(sure_trumps(spades("AK"), 0), 2);
    }

    /// Bits of the cards of one suit, `A K Q J T 9 8 7` being bits 0..7.
    fn suit(cards: &str) -> usize {
        cards
            .chars()
            .map(|c| 1 << "AKQJT987".find(c).unwrap())
            .sum()
    }

    /// Hand bits of spades, hearts, diamonds and clubs (suits 0 to 3).
    fn spades(cards: &str) -> u32 {
        suit(cards) as u32
    }

    fn hearts(cards: &str) -> u32 {
        spades(cards) << 8
    }

    fn diamonds(cards: &str) -> u32 {
        spades(cards) << 16
    }

    fn clubs(cards: &str) -> u32 {
        spades(cards) << 24
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
        // A suit only one side holds pairs, and is no safe lead.
        for cards in 1..256 {
            assert_eq!(MISERE_SUIT[cards << 8], DUCKS);
            assert_eq!(MISERE_SUIT[cards], DUCKS);
        }
    }

    #[test]
    fn a_covered_suit_is_clean_while_its_cover_outlasts_the_discards() {
        // Declarer (seat 0): hearts 9 8 fail to pair against East's 7. West's hearts
        // are all above them, and West keeps one: East's three spades give West three
        // discards, the declarer's spades follow two of them (two of West's hearts
        // against two of the declarer's: slack 2), and on the third the declarer,
        // void, discards a heart too.
        let mut hands = [
            hearts("98") | spades("87"),
            hearts("7") | spades("AKQ"),
            hearts("AKQJ"),
        ];
        assert_eq!(misere_pairing(&hands, 1, 0), Pairing::Unpaired(0b10));
        assert!(misere_clean(&hands, 1, 0));
        assert!(declarer_escapes(&mut hands, 1, 0));
        // With a diamond for the jack West has slack 1: its ace of hearts goes on the
        // third spade, and the seven of hearts catches the eight.
        let mut hands = [
            hearts("98") | spades("87"),
            hearts("7") | spades("AKQ"),
            hearts("AKQ") | diamonds("A"),
        ];
        assert!(!misere_clean(&hands, 1, 0));
        assert!(!declarer_escapes(&mut hands, 1, 0));
    }

    #[test]
    fn interleaved_suits_are_clean_but_not_for_a_lead() {
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
