//! Move ordering per game type: the table's best lead first, then cheap heuristics and
//! the history of cut-offs.
//!
//! Only representatives of equivalent-card groups are generated.

use super::rules::{beaters, beats, seat_after, suit_len, suit_mask, suit_of};
use super::search::{Search, Trick};
use super::tt::NO_MOVE;

/// Up to 10 cards, best first; never allocates.
#[derive(Clone, Copy)]
pub(crate) struct MoveList {
    cards: [u8; 10],
    len: usize,
}

impl MoveList {
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        &self.cards[..self.len]
    }

    /// Appends the cards of `cards` in id order: suits in order, highest rank first.
    #[inline(always)]
    fn push_highest_first(&mut self, mut cards: u32) {
        while cards != 0 && self.len < 10 {
            self.cards[self.len] = cards.trailing_zeros() as u8;
            cards &= cards - 1;
            self.len += 1;
        }
    }

    /// Appends the cards of `cards` in reverse id order: lowest rank first.
    #[inline(always)]
    fn push_lowest_first(&mut self, mut cards: u32) {
        while cards != 0 && self.len < 10 {
            let c = 31 - cards.leading_zeros();
            self.cards[self.len] = c as u8;
            cards &= !(1 << c);
            self.len += 1;
        }
    }

    /// Appends the cards of `cards` lowest rank first, across suits (a discard's), the
    /// suits of one rank in order.
    #[inline(always)]
    fn push_lowest_rank_first(&mut self, cards: u32) {
        if cards & !suit_mask(suit_of(cards.trailing_zeros() as u8 & 31)) == 0 {
            // One suit (or none): the common case.
            self.push_lowest_first(cards);
        } else {
            for rank in (0..8).rev() {
                self.push_highest_first(cards & (0x0101_0101 << rank));
            }
        }
    }

    /// A list that starts with `best` if it is one of `cards`, and the cards left to
    /// append.
    #[inline(always)]
    fn starting_with(best: u8, cards: u32) -> (MoveList, u32) {
        let mut moves = MoveList {
            cards: [0; 10],
            len: 0,
        };
        let best = cards & 1u32.checked_shl(u32::from(best)).unwrap_or(0);
        moves.push_highest_first(best);
        (moves, cards & !best)
    }
}

/// Added, in misère, to a defender's lead in a suit the declarer cannot surely duck
/// (see [`Search::ordered_moves`]): as much as two doublings of its history count.
/// Nodes per layout on 30 random misère views (seeds 101-103 of `bench preferans
/// --random`, 20,000 layouts each), against no bonus: 4.3% fewer in sum, 2.8% fewer
/// in geometric mean (3 views took over 10% fewer, 2 over 10% more). Half of it: 2.3%
/// and 1.2% fewer. Such leads first, before the history's order: 4.3% and 2.9% fewer,
/// but on all 50,000 layouts of the random misère view AQT.*Q7.KT9*7.AQ8, 10% more
/// (with this bonus 0.3% more). Also first, the declarer's leads that a defender must
/// beat (it holds the suit and no lower card): 5.5% more. On all layouts of
/// preferansRu5 it costs 0.4% more nodes and 3.1% more CPU (medians of 7 paired runs;
/// 1.3% with the bonus at 0, the code alone), Ru6 -0.5% nodes and no more CPU.
const MISERE_ATTACK_BONUS: i32 = 32 * 256;

/// Rank value 0 (seven) ..= 7 (ace): higher is a higher card.
#[inline]
const fn height(card: u8) -> i32 {
    7 - (card & 7) as i32
}

impl Search<'_> {
    /// The moves of seat `p` at `ply` of `trick`. Leads, and the declarer's follows in
    /// misère, are scored (heuristics and the history); the other follows are ordered
    /// by rank alone ([`Search::follow_by_rank`], [`Search::misere_defender_follow`]).
    /// In misère, `unpaired` are the suits the declarer cannot surely duck (see
    /// `quick::misere_pairing`): a defender's leads in them gain
    /// [`MISERE_ATTACK_BONUS`].
    #[inline(always)]
    pub(super) fn ordered_moves(
        &self,
        ply: usize,
        p: usize,
        best: u8,
        trick: Trick,
        unpaired: u32,
    ) -> MoveList {
        let reps = self.representatives(ply, p, trick);
        if reps & reps.wrapping_sub(1) == 0 {
            // A single choice needs no scoring.
            let mut cards = [0u8; 10];
            cards[0] = reps.trailing_zeros() as u8;
            return MoveList {
                cards,
                len: usize::from(reps != 0),
            };
        }
        if ply > 0 && !self.misere {
            return self.follow_by_rank(ply, p, reps, best, trick);
        }
        if ply > 0 && p != self.declarer {
            return self.misere_defender_follow(ply, reps, best, trick);
        }
        // The suits whose leads gain [`MISERE_ATTACK_BONUS`].
        let attacked = if ply == 0 && p != self.declarer {
            unpaired
        } else {
            0
        };
        let mut cards = [0u8; 10];
        let mut scores = [0i32; 10];
        let mut len = 0;
        let mut m = reps;
        while m != 0 && len < 10 {
            let c = m.trailing_zeros() as u8;
            m &= m - 1;
            let heuristic = if ply == 0 {
                self.lead_score(p, c)
            } else {
                self.misere_declarer_follow_score(ply, c, trick)
            };
            let history = self.history.bonus(self.history_rows[p], c);
            // In misère the history leads, in sixteenths of its log2, and the heuristics
            // (within ±256) only break its ties: on random misère views that takes
            // 18-28% fewer nodes than the other way round.
            // In trump games the declarer's leads mostly follow the history: it counts
            // 256 per doubling of a card's count, against heuristics spread over about
            // 120. Elsewhere the heuristics lead and the history adds its log2 in
            // quarters (up to 132). Measured once only leads fed the history (see
            // search.rs), against 32 per doubling and the whole log2, with the
            // defender's second-hand rule of `follow_by_rank`: 2.9% fewer nodes on 51
            // random trump and no-trump views (20,000 layouts each); on all layouts
            // preferansRu1 20% fewer, Ru4 18%, Ru7 13%, solvealldeals3 10%, Ru3 7%,
            // solvealldeals2 0.7% more. The declarer's history first (256 per
            // sixteenth) took as many nodes on the random views, Ru3 20% more and
            // solvealldeals3 9% fewer; the defenders' log2 in halves, 3 more of the
            // random views over 10% worse.
            let mut score = if self.misere {
                let attack = (attacked >> suit_of(c) & 1) as i32;
                history * 256 + heuristic + attack * MISERE_ATTACK_BONUS
            } else if ply == 0 && p == self.declarer && self.trumps != 0 {
                heuristic + 16 * history
            } else {
                heuristic + (history >> 2)
            };
            if c == best {
                score += 1_000_000;
            }
            // Insertion sort, descending by score.
            let mut i = len;
            while i > 0 && scores[i - 1] < score {
                cards[i] = cards[i - 1];
                scores[i] = scores[i - 1];
                i -= 1;
            }
            cards[i] = c;
            scores[i] = score;
            len += 1;
        }
        MoveList { cards, len }
    }

    /// A defender's follow in misère, ordered by rank alone (a discard's suits in card
    /// order; scoring each card cost more time than its nodes saved):
    /// - while the declarer is still to play, lowest first: the card it must beat
    ///   stays low;
    /// - while the declarer's card wins the trick, the cards that leave it winning,
    ///   highest first, then those that beat it, lowest first;
    /// - once the declarer has ducked, highest first (unblocking).
    ///
    /// `best`, if one of `reps`, still comes first. Against card order (highest first
    /// throughout), nodes per layout on 30 random misère views (seeds 101-103, 20,000
    /// layouts each): 8.3% fewer in sum, 6.7% in geometric mean, none over 10% more.
    /// On all layouts: solvealldeals1-1 10% fewer, preferansRu5 and Ru6 0.1% and 0.3%
    /// more. Before the declarer plays, not raising the led card first (as while it
    /// wins): 1.7% more. After it ducked, lowest first: 0.8% fewer, but 3 views over
    /// 10% more. The declarer's follows by rank alone too: 11% more.
    #[inline(always)]
    fn misere_defender_follow(&self, ply: usize, reps: u32, best: u8, trick: Trick) -> MoveList {
        let win = self.winning_so_far(ply, trick);
        let declarer_played = ply == 2 || self.leader == self.declarer;
        let (mut moves, reps) = MoveList::starting_with(best, reps);
        if !declarer_played {
            moves.push_lowest_first(reps);
        } else if seat_after(self.leader, win) == self.declarer {
            let beating = reps & beaters(trick[win], self.trumps);
            moves.push_highest_first(reps & !beating);
            moves.push_lowest_first(beating);
        } else {
            moves.push_highest_first(reps);
        }
        moves
    }

    /// A follow in trump and no-trump games, ordered by rank alone, by where the trick
    /// stands (as the per-card scores were, without the history's share):
    /// - when the own side wins the trick so far, lowest first (last to play, side
    ///   cards before trumps); so too a defender second to play after the declarer's
    ///   lead when its partner can beat the lead in its suit;
    /// - last to play against the other side, the cheapest winner first (following
    ///   suit or ruffing), then the other cards lowest first, side cards before trumps;
    /// - second to play against the leader, winners the third player cannot overtake
    ///   in the suit led, lowest first, then those it can, highest first, then the
    ///   other cards lowest first.
    ///
    /// A discard's cards go lowest rank first across suits. `best`, if one of `reps`,
    /// still comes first. Against the scores (heuristics plus a sixteenth of the
    /// history bonus), nodes per layout on 51 random trump and no-trump views (seeds
    /// 101-103, 20,000 layouts each): 1.8% fewer in sum, 2.1% in geometric mean, none
    /// over 10% more; a discard's suits in card order instead: 0.9% fewer, 5 views over
    /// 10% more and 7 over 10% fewer. CPU, paired runs (medians of 5): preferansRu1
    /// -2.5% (nodes +1.4%), Ru3 -14%, Ru4 -1.1%, solvealldeals2 +4.2% (nodes +1.9%);
    /// 50,000 layouts of Ru7 -3.6%, of solvealldeals3 -4.9%. The defender's low card
    /// before a partner that can beat the lead (once the follows no longer fed the
    /// history, see search.rs): 0.8% fewer nodes on the random views, Ru7 7.6% fewer
    /// (all layouts).
    #[inline(always)]
    fn follow_by_rank(&self, ply: usize, p: usize, reps: u32, best: u8, trick: Trick) -> MoveList {
        let win = self.winning_so_far(ply, trick);
        let own_side_wins = (seat_after(self.leader, win) == self.declarer) == (p == self.declarer);
        let (mut moves, reps) = MoveList::starting_with(best, reps);
        let beating = reps & beaters(trick[win], self.trumps);
        let trumps = self.trumps;
        let led = suit_mask(suit_of(trick[0]));
        let third = self.hands[seat_after(self.leader, 2)] & led;
        // Second to play: whether the third player can beat the lead in its suit.
        let third_beats_lead = ply == 1 && third & beaters(trick[0], trumps) != 0;
        if own_side_wins && ply == 2 {
            moves.push_lowest_rank_first(reps & !trumps);
            moves.push_lowest_first(reps & trumps);
        } else if own_side_wins || (self.leader == self.declarer && third_beats_lead) {
            moves.push_lowest_rank_first(reps);
        } else if ply == 2 {
            // The winners are of one suit: the suit led, or trumps.
            moves.push_lowest_first(beating);
            moves.push_lowest_rank_first(reps & !beating & !trumps);
            moves.push_lowest_first(reps & !beating & trumps);
        } else {
            // The cards of the suit led below the third player's highest (none if it
            // holds none).
            let below_third = !(third ^ third.wrapping_sub(1)) & led;
            let overtaken = beating & below_third;
            moves.push_lowest_first(beating & !overtaken);
            moves.push_highest_first(overtaken);
            moves.push_lowest_rank_first(reps & !beating);
        }
        moves
    }

    #[inline(always)]
    fn lead_score(&self, p: usize, c: u8) -> i32 {
        let s = suit_of(c);
        let sm = suit_mask(s);
        let live_s = self.live & sm;
        let top = live_s.trailing_zeros() as u8;
        let holder = (0..3)
            .find(|&q| self.hands[q] & (1 << top) != 0)
            .unwrap_or(p);
        let partner = p != self.declarer && holder != self.declarer;
        if self.misere {
            let decl_s = self.hands[self.declarer] & sm;
            let defs_s = live_s & !decl_s;
            if p == self.declarer {
                // Lead a card some defender can beat; lowest first.
                let higher = defs_s & ((1u32 << c) - 1);
                return if higher != 0 {
                    50 - height(c)
                } else {
                    -height(c)
                };
            }
            // Defender: lead a card below the declarer's lowest card of the suit.
            if decl_s != 0 {
                let decl_low = 31 - decl_s.leading_zeros();
                return if u32::from(c) > decl_low {
                    60 - height(c)
                } else {
                    20 - height(c)
                };
            }
            return 10 - height(c);
        }
        let trump_lead = self.trumps & sm != 0;
        if top == c {
            let mut score = 60 + height(c);
            // An opponent void in the suit with trumps would ruff our winner.
            if !trump_lead && self.trumps != 0 {
                for q in 0..3 {
                    if q != p
                        && (q == self.declarer) != (p == self.declarer)
                        && self.hands[q] & sm == 0
                        && self.hands[q] & self.trumps != 0
                    {
                        score -= 45;
                    }
                }
            }
            return score;
        }
        if partner && holder != p {
            // Lead low towards the partner's winner.
            return 45 - height(c);
        }
        if trump_lead && p != self.declarer {
            // A defender's trump lead below the top trump comes last: 5% fewer nodes
            // on preferansRu4, 3% on Ru3, 1.9% on random trump views.
            return -height(c);
        }
        if trump_lead && p == self.declarer {
            return 30 - height(c);
        }
        20 - height(c) - suit_len(live_s & !self.hands[p], s) as i32
    }

    /// Which card of the trick so far (`ply` cards) wins it: 0, the lead, or 1.
    #[inline(always)]
    fn winning_so_far(&self, ply: usize, trick: Trick) -> usize {
        usize::from(ply == 2 && beats(trick[1], trick[0], self.trumps))
    }

    /// The declarer's follow in misère (the other follows are ordered by rank alone):
    /// duck with the highest card that still loses.
    #[inline(always)]
    fn misere_declarer_follow_score(&self, ply: usize, c: u8, trick: Trick) -> i32 {
        let win = self.winning_so_far(ply, trick);
        if !beats(c, trick[win], self.trumps) {
            100 + height(c)
        } else if ply == 2 {
            50 + height(c)
        } else {
            50 - height(c)
        }
    }
}

const _: () = assert!(NO_MOVE > 31);

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::history::History;
    use super::super::position::trump_mask;
    use super::super::search::tests::{position, table_for, test_strain, with_search};
    use super::super::search::{RawPosition, Search};
    use super::super::tt::NO_MOVE;
    use super::MoveList;
    use crate::Strain;

    /// The representatives of the player to follow the cards of `table`, and their
    /// order (no table's best move, no history).
    fn follow_order(
        hands: [u32; 3],
        table: &[u8],
        leader: usize,
        declarer: usize,
        strain: Strain,
    ) -> (u32, MoveList) {
        let (ply, p) = (table.len(), (leader + table.len()) % 3);
        let raw = RawPosition {
            hands,
            table,
            leader,
            declarer,
        };
        with_search(raw, strain, |search| {
            let reps = search.representatives(ply, p, search.table);
            (reps, search.ordered_moves(ply, p, NO_MOVE, search.table, 0))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// The ordered moves are exactly the plain representatives (each once), with
        /// the table's best move first when it is one of them.
        #[test]
        fn ordered_moves_are_the_plain_moves(
            deck in Just((0u8..32).collect::<Vec<u8>>()).prop_shuffle(),
            n in 1usize..=10,
            ply in 0usize..3,
            leader in 0usize..3,
            declarer in 0usize..3,
            strain in 0u32..6,
            best_pick in 0usize..12,
            unpaired in 0u32..16,
            history_seed in any::<u64>(),
        ) {
            let strain = test_strain(strain);
            let trumps = trump_mask(strain);
            let (hands, table) = position(&deck, n, ply, leader, trumps);
            let mut tt = table_for(strain);
            // A non-empty history, so its bonus takes part in the ordering.
            let mut history = History::default();
            let mut s = history_seed;
            for _ in 0..20 {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                history.record((s >> 60) as usize % 3, (s >> 40) as u8 & 31, (s >> 32) as u32 & 15);
            }
            let raw = RawPosition { hands, table: &table, leader, declarer };
            let search = Search::new(&mut tt, &mut history, raw, strain);
            let p = (leader + ply) % 3;
            let plain = search.representatives(ply, p, search.table);
            let plain_cards: Vec<u8> = (0..32u8).filter(|&c| plain & (1 << c) != 0).collect();
            let best = plain_cards.get(best_pick).copied().unwrap_or(NO_MOVE);
            let ordered = search.ordered_moves(ply, p, best, search.table, unpaired);
            let mut sorted = ordered.as_slice().to_vec();
            sorted.sort_unstable();
            prop_assert_eq!(&sorted, &plain_cards);
            if best != NO_MOVE {
                prop_assert_eq!(ordered.as_slice()[0], best);
            }
        }

        /// In misère, a defender on lead with no history yet leads the suits the
        /// declarer cannot surely duck (`unpaired`) before the others.
        #[test]
        fn misere_defenders_lead_unpaired_suits_first(
            deck in Just((0u8..32).collect::<Vec<u8>>()).prop_shuffle(),
            n in 1usize..=10,
            leader in 0usize..3,
            declarer_after in 1usize..3,
            unpaired in 0u32..16,
        ) {
            let declarer = (leader + declarer_after) % 3;
            let (hands, table) = position(&deck, n, 0, leader, 0);
            let raw = RawPosition { hands, table: &table, leader, declarer };
            let ordered = with_search(raw, Strain::Misere, |search| {
                search.ordered_moves(0, leader, NO_MOVE, search.table, unpaired)
            });
            let attacks = |c: &u8| unpaired >> (c / 8) & 1 != 0;
            let first_other = ordered.as_slice().iter().position(|c| !attacks(c));
            if let Some(i) = first_other {
                prop_assert!(!ordered.as_slice()[i..].iter().any(attacks), "{:?}", ordered.as_slice());
            }
        }

        /// In misère the defenders share one history row: a defender on lead puts first
        /// the card its partner's cut-offs counted most, while the declarer's counts
        /// move nothing. In the other strains each seat has its own row, so neither
        /// changes the leader's order.
        #[test]
        fn misere_defenders_share_their_history(
            deck in Just((0u8..32).collect::<Vec<u8>>()).prop_shuffle(),
            n in 1usize..=10,
            leader in 0usize..3,
            declarer_after in 1usize..3,
            pick in 0usize..10,
            strain in 0u32..6,
        ) {
            let declarer = (leader + declarer_after) % 3;
            let partner = 3 - leader - declarer;
            let strain = test_strain(strain);
            let (trumps, misere) = (trump_mask(strain), strain.is_misere());
            let (hands, table) = position(&deck, n, 0, leader, trumps);
            let raw = RawPosition { hands, table: &table, leader, declarer };
            // The order after cut-offs recorded as the search records them.
            let order = |cuts: &[(usize, u8, u32)]| {
                let mut tt = table_for(strain);
                let mut history = History::default();
                let search = Search::new(&mut tt, &mut history, raw, strain);
                for &(seat, card, weight) in cuts {
                    let row = search.history_rows[seat];
                    search.history.record(row, card, weight);
                }
                let moves = search.ordered_moves(0, leader, NO_MOVE, search.table, 0);
                moves.as_slice().to_vec()
            };
            let plain = order(&[]);
            let card = plain[pick % plain.len()];
            // The declarer's count is larger, for another card of the leader's.
            let other = plain[(pick + 1) % plain.len()];
            let ordered = order(&[(partner, card, 1 << 20), (declarer, other, 1 << 24)]);
            if misere {
                prop_assert_eq!(ordered[0], card, "{:?}", ordered);
            } else {
                prop_assert_eq!(ordered, plain);
            }
        }

        /// In misère a defender follows by rank (a discard's suits in card order):
        /// lowest first while the declarer is still to play; while the declarer's card
        /// wins the trick, the cards that keep it winning (highest first) before those
        /// that beat it (lowest first); after the declarer has ducked, highest first.
        #[test]
        fn misere_defenders_follow_by_rank(
            deck in Just((0u8..32).collect::<Vec<u8>>()).prop_shuffle(),
            n in 1usize..=10,
            ply in 1usize..3,
            leader in 0usize..3,
            declarer_pick in 0usize..2,
        ) {
            let p = (leader + ply) % 3;
            let declarer = [(p + 1) % 3, (p + 2) % 3][declarer_pick];
            let (hands, table) = position(&deck, n, ply, leader, 0);
            let (reps, ordered) = follow_order(hands, &table, leader, declarer, Strain::Misere);
            // The trick so far: a higher card of the suit led wins (card ids run from
            // the ace down), nothing else.
            let led_suit = table[0] / 8;
            let winning = (0..ply)
                .filter(|&k| table[k] / 8 == led_suit)
                .min_by_key(|&k| table[k])
                .unwrap();
            let declarer_played = (0..ply).any(|k| (leader + k) % 3 == declarer);
            let declarer_wins = (leader + winning) % 3 == declarer;
            // "Highest first" is card-id order: within a suit the ranks fall, and a
            // discard's suits come in order.
            let mut expected: Vec<u8> = (0..32u8).filter(|&c| reps & (1 << c) != 0).collect();
            if !declarer_played {
                expected.reverse();
            } else if declarer_wins {
                let beats = |c: u8| c / 8 == led_suit && c < table[winning];
                expected.sort_by_key(|&c| (beats(c), if beats(c) { 31 - c } else { c }));
            }
            prop_assert_eq!(ordered.as_slice(), &expected[..], "table {:?}", table);
        }

        /// In trump and no-trump games a follow goes in the order of these per-card
        /// scores (ties in card order), written out separately here: the own side
        /// winning, lowest first (last to play: side cards before trumps); last to play
        /// against the other side, the cheapest winner first; second to play, winners
        /// the third player cannot overtake in the suit led lowest first, those it can
        /// highest first, then the rest lowest first; a defender second to play after
        /// the declarer's lead, lowest first when its partner can beat the lead.
        #[test]
        fn follows_go_in_the_order_of_their_scores(
            deck in Just((0u8..32).collect::<Vec<u8>>()).prop_shuffle(),
            n in 1usize..=10,
            ply in 1usize..3,
            leader in 0usize..3,
            declarer in 0usize..3,
            strain in 0u32..5,
        ) {
            let strain = test_strain(strain);
            prop_assert!(!strain.is_misere());
            let trumps = trump_mask(strain);
            let p = (leader + ply) % 3;
            let (hands, table) = position(&deck, n, ply, leader, trumps);
            let (reps, ordered) = follow_order(hands, &table, leader, declarer, strain);
            let trump = |c: u8| trumps >> c & 1 != 0;
            let rank = |c: u8| 7 - i32::from(c % 8);
            // Card ids run from the ace down within a suit.
            let beats = |a: u8, b: u8| {
                if a / 8 == b / 8 { a < b } else { trump(a) }
            };
            let winning = if ply == 2 && beats(table[1], table[0]) { 1 } else { 0 };
            let own_side_wins = ((leader + winning) % 3 == declarer) == (p == declarer);
            // Second to play after the declarer's lead: the partner, third to play,
            // holds a higher card of the suit led.
            let partner_beats_lead = (0..32u8).any(|t| {
                hands[(leader + 2) % 3] >> t & 1 != 0 && t / 8 == table[0] / 8 && t < table[0]
            });
            let score = |c: u8| -> i32 {
                let wins = beats(c, table[winning]);
                let trump_cost = if trump(c) { 20 } else { 0 };
                match (ply, own_side_wins, wins) {
                    (2, true, _) => -rank(c) - trump_cost,
                    (2, false, true) => 100 - rank(c),
                    (2, false, false) => -rank(c) - trump_cost,
                    (_, true, _) | (_, false, false) => -rank(c),
                    (_, false, true) if leader == declarer && partner_beats_lead => -rank(c),
                    (_, false, true) => {
                        let third = hands[(leader + 2) % 3];
                        let overtaken = (0..32u8).any(|t| {
                            third >> t & 1 != 0 && t / 8 == table[0] / 8 && t / 8 == c / 8 && t < c
                        });
                        if overtaken { 40 + rank(c) } else { 80 - rank(c) }
                    }
                }
            };
            let mut expected: Vec<u8> = (0..32u8).filter(|&c| reps & (1 << c) != 0).collect();
            expected.sort_by_key(|&c| std::cmp::Reverse(score(c)));
            prop_assert_eq!(ordered.as_slice(), &expected[..], "table {:?}", table);
        }
    }
}
